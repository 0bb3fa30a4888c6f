import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import { afterAll, describe, expect, it } from 'vitest';
import { ed25519PrivateKeyObject, generateEd25519Key } from './keys.js';
import { toOpenSshPrivateKey } from './openssh-key-format.js';
import { poolPacketPadding, RandomPool, unpoolPacketPadding } from './padding-pool.js';

const require = createRequire(import.meta.url);

/** A source of "random" bytes that counts, so each byte handed out can be traced. */
function countingSource() {
  const state = { next: 0, calls: 0 };
  const source = (target: Buffer) => {
    state.calls++;
    for (let i = 0; i < target.length; i++) target[i] = state.next++ & 0xff;
  };
  return { state, source };
}

const range = (from: number, to: number) =>
  Buffer.from([...Array(to - from).keys()].map((i) => i + from));

describe('RandomPool', () => {
  it('hands out each byte of the source once, refilling when a request does not fit', () => {
    const { state, source } = countingSource();
    const pool = new RandomPool(16, source);
    const out = Buffer.alloc(20);
    pool.fill(out, 0, 10);
    pool.fill(out, 10, 6);
    expect(state.calls).toBe(1);
    pool.fill(out, 16, 4); // 0 left: a fresh block (16…31), of which 16…19
    expect(state.calls).toBe(2);
    expect(out).toEqual(range(0, 20));
    pool.fill(out, 0, 13); // 12 left: another fresh block (32…47), the rest is never used
    expect(out.subarray(0, 13)).toEqual(range(32, 45));
  });

  it('sends a request larger than the pool to the source directly', () => {
    const { state, source } = countingSource();
    const pool = new RandomPool(16, source);
    const out = Buffer.alloc(40);
    pool.fill(out, 3, 30);
    expect(state.calls).toBe(1);
    expect(out.subarray(3, 33)).toEqual(range(0, 30));
    expect(out.subarray(0, 3)).toEqual(Buffer.alloc(3));
  });
});

describe('poolPacketPadding', () => {
  // From ssh2's own method (another file in this worker may have pooled it), and back to the
  // default pool after, for the files that run next.
  unpoolPacketPadding();
  afterAll(() => {
    unpoolPacketPadding();
    poolPacketPadding();
  });
  type Cipher = { allocPacket(payloadLen: number): Buffer; free(): void };
  const { CIPHER_INFO, createCipher } = require('ssh2/lib/protocol/crypto.js') as {
    CIPHER_INFO: Record<string, unknown>;
    createCipher(config: object): Cipher;
  };
  const aesGcm = () =>
    createCipher({
      outbound: {
        onWrite: () => undefined,
        cipherInfo: CIPHER_INFO['aes128-gcm@openssh.com'],
        cipherKey: Buffer.alloc(16),
        cipherIV: Buffer.alloc(12),
        seqno: 0,
      },
    });
  const cipher = aesGcm();
  const ssh2AllocPacket = Object.getPrototypeOf(cipher).allocPacket as Cipher['allocPacket'];
  const { state, source } = countingSource();
  const installed = poolPacketPadding(new RandomPool(4096, source));

  it('is in use with the ssh2 it was written for (1.17.0)', () => {
    // Fails when ssh2 changes: check the replaced method (padding-pool.ts) against the new one.
    expect(installed).toBe(true);
    expect(poolPacketPadding()).toBe(true);
    expect(Object.getPrototypeOf(aesGcm()).allocPacket).not.toBe(ssh2AllocPacket);
  });

  it('frames packets exactly as ssh2 does, the padding taken from the pool in turn', () => {
    let handedOut = 0; // the pool's first block is source bytes 0…4095, handed out in order
    for (const payloadLen of [0, 1, 2, 10, 11, 12, 13, 27, 28, 29, 100, 1000, 32_670, 32_777]) {
      const ours = cipher.allocPacket(payloadLen);
      const theirs = ssh2AllocPacket.call(cipher, payloadLen);
      expect(ours.length).toBe(theirs.length);
      expect(ours.subarray(0, 5)).toEqual(theirs.subarray(0, 5)); // length, padding length
      const padLen = ours[4]!;
      expect(ours.subarray(5 + payloadLen, 5 + payloadLen + padLen)).toEqual(
        range(handedOut, handedOut + padLen),
      );
      handedOut += padLen;
    }
    expect(state.calls).toBe(1);
  });

  describe('between two ssh2 peers with AES-GCM', () => {
    const hostKey = toOpenSshPrivateKey(
      ed25519PrivateKeyObject(generateEd25519Key().privateKeyPem),
    );
    const server = new ssh2.Server({ hostKeys: [hostKey] }, (connection) => {
      connection.on('authentication', (ctx) => ctx.accept());
      connection.on('ready', () =>
        connection.on('session', (accept) =>
          accept().on('exec', (acceptExec) => {
            const channel = acceptExec();
            channel.pipe(channel); // echo
          }),
        ),
      );
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    // Both sides' packets are framed by the pooled allocPacket: each checks the other's.
    it('carries 1 MiB both ways intact', async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const client = new ssh2.Client();
      const ready = new Promise<void>((resolve, reject) =>
        client.on('ready', resolve).on('error', reject),
      );
      client.connect({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        username: 'test',
        algorithms: { cipher: ['aes128-gcm@openssh.com'] },
      });
      await ready;
      const data = randomBytes(1024 * 1024);
      const echoed = await new Promise<Buffer>((resolve, reject) => {
        client.on('error', reject); // a packet the peer cannot read ends the connection
        client.exec('echo', (error, channel) => {
          if (error) return reject(error);
          const chunks: Buffer[] = [];
          channel.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            if (chunks.reduce((n, c) => n + c.length, 0) >= data.length) {
              resolve(Buffer.concat(chunks));
            }
          });
          channel.write(data);
        });
      });
      client.end();
      expect(echoed.equals(data)).toBe(true);
    });
  });
});
