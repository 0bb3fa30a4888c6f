import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { ByteInput } from './byte-input.js';
import { ByteOutput } from './byte-output.js';
import { readClientMessage, type ClientMessage } from './client-messages.js';
import { proxyPixelFormat, type PixelFormat } from './pixel-format.js';
import { securityType, versionBytes, type RfbVersion } from './protocol.js';
import { encodeServerInit } from './server-init.js';
import { socketPair } from './rfb.testkit.js';
import { vncAuthResponse } from './vnc-auth.js';

export interface FakeDesktopOptions {
  version?: RfbVersion;
  /** Security types offered (default None); a 3.3 server imposes the first. */
  security?: number[];
  /** Checked when the client picks VNC Authentication. */
  password?: string;
  width?: number;
  height?: number;
  name?: string;
  /** The desktop's own format in ServerInit (the proxy replaces it). */
  pixelFormat?: PixelFormat;
}

/**
 * A scripted VNC server on one loopback connection, for what a real one will not do on demand
 * (bad bytes, clipboard at a chosen moment, old protocol versions). `desktop` is the end to hand
 * the relay; `ready` resolves after the handshake with the server's side, which reads client
 * messages and writes whatever a test wants.
 */
export async function fakeDesktop(options: FakeDesktopOptions = {}) {
  const { client, server } = await socketPair();
  const input = new ByteInput(server, 'the proxy');
  const out = new ByteOutput(server, 'the proxy');
  const peer = new FakeDesktopPeer(server, input);
  const ready = serveHandshake(input, out, options).then(() => peer);
  // A handshake cut short is what some tests do on purpose; they look at the relay's side.
  ready.catch(() => undefined);
  return { desktop: client, server, ready };
}

export class FakeDesktopPeer {
  /** Every client message received after the handshake, in order. */
  readonly received: ClientMessage[] = [];
  readonly #socket: Socket;
  readonly #input: ByteInput;

  constructor(socket: Socket, input: ByteInput) {
    this.#socket = socket;
    this.#input = input;
  }

  /** The next client message. */
  async next(): Promise<ClientMessage> {
    const message = await readClientMessage(this.#input);
    this.received.push(message);
    return message;
  }

  /** Reads client messages until one of `type` comes. */
  async nextOf<T extends ClientMessage['type']>(
    type: T,
  ): Promise<Extract<ClientMessage, { type: T }>> {
    for (;;) {
      const message = await this.next();
      if (message.type === type) return message as Extract<ClientMessage, { type: T }>;
    }
  }

  write(bytes: Buffer): boolean {
    return this.#socket.write(bytes);
  }

  get socket(): Socket {
    return this.#socket;
  }
}

async function serveHandshake(input: ByteInput, out: ByteOutput, options: FakeDesktopOptions) {
  const version = options.version ?? '3.8';
  const offered = options.security ?? [securityType.none];
  await out.write(versionBytes(version));
  await out.flush();
  await input.read(12);
  let chosen: number;
  if (version === '3.3') {
    chosen = offered[0]!;
    await out.write(u32(chosen));
  } else {
    await out.write(Buffer.from([offered.length, ...offered]));
    await out.flush();
    chosen = (await input.read(1))[0]!;
  }
  let accepted = true;
  if (chosen === securityType.vncAuthentication) {
    const challenge = randomBytes(16);
    await out.write(challenge);
    await out.flush();
    const response = await input.read(16);
    accepted = response.equals(vncAuthResponse(options.password ?? '', challenge));
  }
  if (chosen === securityType.vncAuthentication || version === '3.8') {
    await out.write(u32(accepted ? 0 : 1));
    if (!accepted && version === '3.8') {
      const reason = Buffer.from('Authentication failure');
      await out.write(Buffer.concat([u32(reason.length), reason]));
    }
  }
  await out.flush();
  if (!accepted) throw new Error('the fake desktop refused the password');
  await input.read(1);
  await out.write(
    encodeServerInit({
      width: options.width ?? 64,
      height: options.height ?? 48,
      pixelFormat: options.pixelFormat ?? proxyPixelFormat,
      name: options.name ?? 'fake desktop',
    }),
  );
  await out.flush();
}

const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};
