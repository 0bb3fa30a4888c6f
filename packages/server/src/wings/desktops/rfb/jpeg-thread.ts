import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * JPEG decoding for the proxy's copies of desktop screens, on ONE worker thread shared by every
 * session. Decoding in JavaScript costs about 80 ms a megapixel; on the event loop, one busy
 * recorded desktop would stall every session the proxy carries (terminals, other desktops) by
 * that much each time its recorder reads the screen.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const jpeg = require(workerData.jpeg);
parentPort.on('message', ({ id, bytes, options }) => {
  try {
    const image = jpeg.decode(bytes, options);
    parentPort.postMessage(
      { id, width: image.width, height: image.height, data: image.data },
      [image.data.buffer],
    );
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

export interface DecodedJpeg {
  width: number;
  height: number;
  /** RGBA rows, opaque. */
  data: Uint8Array;
}

/**
 * jpeg-js's options, on the thread and off it: RGBA out, strict, and no larger than the
 * rectangle (whose size the caller checked in the JPEG's frame header).
 */
export function jpegDecodeOptions(size: { width: number; height: number }) {
  return {
    useTArray: true as const,
    formatAsRGBA: true,
    tolerantDecoding: false,
    maxResolutionInMP: (size.width * size.height) / 1e6 + 0.001,
    maxMemoryUsageInMB: 512,
  };
}

type Reply = { id: number; error: string } | ({ id: number } & DecodedJpeg);

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<
  number,
  { resolve: (image: DecodedJpeg) => void; reject: (error: Error) => void }
>();

/**
 * Decodes `bytes` (a JPEG whose frame header the caller checked says `width`×`height`) off the
 * event loop. Rejects when it does not decode, or when the thread is gone.
 */
export function decodeJpegOffThread(
  bytes: Uint8Array,
  width: number,
  height: number,
): Promise<DecodedJpeg> {
  // Its own memory, transferred: a small Buffer may be a slice of Node's shared pool.
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const decoder = thread();
    // Held while it has work: a decode awaited at the end must not see the process exit.
    if (waiting.size === 0) decoder.ref();
    waiting.set(id, { resolve, reject });
    decoder.postMessage({ id, bytes: copy, options: jpegDecodeOptions({ width, height }) }, [
      copy.buffer,
    ]);
  });
}

function thread(): Worker {
  if (worker) return worker;
  const require = createRequire(import.meta.url);
  const started = new Worker(workerSource, {
    eval: true,
    workerData: { jpeg: require.resolve('jpeg-js') },
  });
  started.on('message', (reply: Reply) => {
    const entry = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) started.unref();
    if (!entry) return;
    if ('error' in reply) entry.reject(new Error(reply.error));
    else entry.resolve(reply);
  });
  const gone = (error: Error) => {
    // Whatever was asked is refused; the next decode starts a new thread.
    for (const entry of waiting.values()) entry.reject(error);
    waiting.clear();
    if (worker === started) worker = undefined;
  };
  started.on('error', gone);
  started.on('exit', () => gone(new Error('the JPEG decoding thread stopped')));
  // Idle, it does not keep the process alive.
  started.unref();
  worker = started;
  return started;
}
