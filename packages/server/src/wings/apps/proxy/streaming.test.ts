import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyFixture, targetFor } from './proxy-fixture.testkit.js';

const fixture = new ProxyFixture();
afterEach(() => fixture.closeAll());

const bodySize = 64 * 1024 * 1024;
// Measured on loopback: buffers held at a moment peak at 5-16 MiB with the proxy or without it
// (a socket drained in one go after a pause), whatever the body's size. A proxy that ignored
// backpressure holds most of the body (about 60 MiB here, the reader being the slow end).
const bound = bodySize / 2;

describe('streaming through the proxy', () => {
  it('passes a 64 MiB request body to a slow upstream without holding it', async () => {
    let received = 0;
    const upstream = await fixture.upstream((req, res) => {
      void pipeline(
        req,
        slowSink((length) => (received += length)),
      ).then(() => res.end('stored'));
    });
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    const peak = await peakMemoryDuring(
      () =>
        new Promise<string>((resolve, reject) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port,
              method: 'PUT',
              path: '/blob',
              agent: false,
              headers: { 'content-length': bodySize },
            },
            (res) => {
              res.setEncoding('utf8');
              let text = '';
              res.on('data', (chunk: string) => (text += chunk));
              res.on('end', () => resolve(text));
            },
          );
          req.on('error', reject);
          void pipeline(generated(bodySize), req).catch(reject);
        }),
    );
    expect(peak.result).toBe('stored');
    expect(received).toBe(bodySize);
    expect(peak.growth).toBeLessThan(bound);
  });

  it('passes a 64 MiB response body to a slow client without holding it', async () => {
    const upstream = await fixture.upstream((_req, res) => {
      res.writeHead(200, { 'content-length': bodySize });
      void pipeline(generated(bodySize), res).catch(() => undefined);
    });
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    const peak = await peakMemoryDuring(
      () =>
        new Promise<number>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path: '/blob', agent: false }, (res) => {
              let received = 0;
              pipeline(
                res,
                slowSink((length) => (received += length)),
              ).then(() => resolve(received), reject);
            })
            .on('error', reject);
        }),
    );
    expect(peak.result).toBe(bodySize);
    expect(peak.growth).toBeLessThan(bound);
  });
});

/** `size` bytes in 64 KiB pieces, made as they are read (the same piece again: no garbage). */
function generated(size: number): Readable {
  const piece = Buffer.alloc(64 * 1024, 'p');
  let left = size;
  return new Readable({
    read() {
      if (left === 0) {
        this.push(null);
        return;
      }
      const length = Math.min(left, piece.length);
      left -= length;
      this.push(length === piece.length ? piece : piece.subarray(0, length));
    },
  });
}

/** A reader that takes a millisecond over each piece: slower than loopback, so backpressure is needed. */
function slowSink(count: (length: number) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      count(chunk.length);
      setTimeout(done, 1);
    },
  });
}

/**
 * Runs `work` while sampling the memory Buffers take after a full collection each time, so only
 * what is still held counts, not garbage awaiting collection. `arrayBuffers` alone: it is part
 * of `external` already, which also moves with things that are not Buffers.
 */
async function peakMemoryDuring<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const gc = collector();
  const held = (): number => {
    gc();
    return process.memoryUsage().arrayBuffers;
  };
  const baseline = held();
  let peak = baseline;
  // A full collection takes longer the bigger the heap (this worker's other test files leave
  // theirs): the next sample waits four times as long as the last took, so collecting never
  // crowds out the transfer it measures.
  let sampler: NodeJS.Timeout | undefined;
  const sample = () => {
    const started = performance.now();
    peak = Math.max(peak, held());
    sampler = setTimeout(sample, Math.max(100, 4 * (performance.now() - started)));
  };
  sampler = setTimeout(sample, 100);
  try {
    const result = await work();
    return { result, growth: peak - baseline };
  } finally {
    clearTimeout(sampler);
  }
}

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
