import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TerminalClient } from '../../../testing/terminal-client.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../../testing/terminal-fixture.testkit.js';

// A broken client gets a close frame with the RFC 6455 code that names its mistake (so its
// developer can tell what went wrong), and the sessions of everyone else go on.

let fixture: TerminalFixture;
let alice: Record<string, string>;

beforeAll(async () => {
  fixture = await startTerminalFixture();
  alice = await fixture.app.signIn([fixture.role], 'alice');
}, 60_000);

afterAll(() => fixture?.close());

async function shell(): Promise<TerminalClient> {
  const client = await fixture.open(alice);
  expect(client.response.status).toBe('ok');
  await client.waitForOutput(/[#$] $/m);
  return client;
}

/** One client-to-server frame, masked as RFC 6455 requires, written below the ws library. */
function rawFrame(firstByte: number, payload: Buffer, declaredLength = payload.length): Buffer {
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  let header: Buffer;
  if (declaredLength < 126) header = Buffer.from([firstByte, 0x80 | declaredLength]);
  else {
    header = Buffer.alloc(10);
    header[0] = firstByte;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(declaredLength), 2);
  }
  return Buffer.concat([header, mask, masked]);
}

const rawSocket = (client: TerminalClient) =>
  (client.socket as unknown as { _socket: Socket })._socket;

describe('WebSocket protocol errors', () => {
  const cases = [
    // A reserved opcode (0x3) is a protocol error.
    {
      name: '1002 for a reserved opcode',
      code: 1002,
      frame: () => rawFrame(0x83, Buffer.from('x')),
    },
    // A text frame must be UTF-8.
    {
      name: '1007 for a text frame that is not UTF-8',
      code: 1007,
      frame: () => rawFrame(0x81, Buffer.from([0xc3, 0x28, 0xff])),
    },
    // The header alone announces more than the 1 MiB limit; nothing is buffered first.
    {
      name: '1009 for a message above the size limit',
      code: 1009,
      frame: () => rawFrame(0x82, Buffer.alloc(0), 8 * 1024 * 1024),
    },
  ];

  for (const { name, code, frame } of cases) {
    it(`closes with ${name}, and another session goes on`, async () => {
      const [broken, bystander] = await Promise.all([shell(), shell()]);
      rawSocket(broken).write(frame());
      const closed = await broken.closed;
      expect(closed.code).toBe(code);

      bystander.type(`echo still-${code}-$((6*7))\r`);
      await bystander.waitForOutput(`still-${code}-42`);
      bystander.close();
      await bystander.closed;
    });
  }
});
