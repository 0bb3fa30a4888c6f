import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptProxied, readProxyHeader, TrustedProxies } from './proxy-protocol.js';

const signature = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

/** A version 2 header as a balancer writes it (HAProxy's send-proxy-v2), with `tlvs` after. */
function v2(options: {
  command?: number;
  family?: number;
  addresses?: number[];
  ports?: [number, number];
  tlvs?: Buffer;
}): Buffer {
  const {
    command = 1,
    family = 0x11,
    addresses = [],
    ports = [0, 0],
    tlvs = Buffer.alloc(0),
  } = options;
  const portBytes = Buffer.alloc(4);
  portBytes.writeUInt16BE(ports[0], 0);
  portBytes.writeUInt16BE(ports[1], 2);
  const body = Buffer.concat([
    Buffer.from(addresses),
    addresses.length ? portBytes : Buffer.alloc(0),
    tlvs,
  ]);
  const head = Buffer.alloc(4);
  head[0] = 0x20 | command;
  head[1] = family;
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([signature, head, body]);
}

describe('reading a PROXY protocol header', () => {
  it('reads version 1 for IPv4 and IPv6, and UNKNOWN as naming nobody', () => {
    const line = 'PROXY TCP4 203.0.113.7 10.0.0.2 51234 443\r\n';
    expect(readProxyHeader(Buffer.from(`${line}\x16\x03\x01`))).toEqual({
      kind: 'header',
      length: line.length,
      source: { address: '203.0.113.7', port: 51234, family: 'IPv4' },
    });
    const six = 'PROXY TCP6 2001:db8::7 2001:db8::1 40000 22\r\nSSH-2.0-x\r\n';
    expect(readProxyHeader(Buffer.from(six))).toMatchObject({
      source: { address: '2001:db8::7', port: 40000, family: 'IPv6' },
    });
    expect(readProxyHeader(Buffer.from('PROXY UNKNOWN\r\n'))).toEqual({
      kind: 'header',
      length: 15,
    });
  });

  it('reads version 2 for IPv4 and IPv6 with TLVs after, and LOCAL (health checks) as nobody', () => {
    const four = v2({
      addresses: [203, 0, 113, 7, 10, 0, 0, 2],
      ports: [51234, 443],
      tlvs: Buffer.from([4, 0, 1, 0]),
    });
    expect(readProxyHeader(Buffer.concat([four, Buffer.from('GET / HTTP/1.1\r\n')]))).toEqual({
      kind: 'header',
      length: four.length,
      source: { address: '203.0.113.7', port: 51234, family: 'IPv4' },
    });
    const address6 = [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 7];
    const six = v2({ family: 0x21, addresses: [...address6, ...address6], ports: [40000, 22] });
    expect(readProxyHeader(six)).toMatchObject({
      source: { address: '2001:db8::7', family: 'IPv6' },
    });
    const mapped = [...Array(10).fill(0), 0xff, 0xff, 198, 51, 100, 4];
    expect(readProxyHeader(v2({ family: 0x21, addresses: [...mapped, ...mapped] }))).toMatchObject({
      source: { address: '::ffff:198.51.100.4' },
    });
    expect(readProxyHeader(v2({ command: 0, family: 0 }))).toEqual({ kind: 'header', length: 16 });
  });

  it('waits for the rest of a header cut short, and says when the bytes are no header at all', () => {
    const whole = v2({ addresses: [203, 0, 113, 7, 10, 0, 0, 2], ports: [1, 2] });
    for (const cut of [1, 11, 13, whole.length - 1]) {
      expect(readProxyHeader(whole.subarray(0, cut)).kind).toBe('incomplete');
    }
    expect(readProxyHeader(Buffer.from('PROXY TCP4 203.0.')).kind).toBe('incomplete');
    for (const start of [
      '\x16\x03\x01\x02\x00',
      'SSH-2.0-OpenSSH_9.2\r\n',
      'GET / HTTP/1.1\r\n',
      'POST /x',
    ]) {
      expect(readProxyHeader(Buffer.from(start, 'latin1')).kind).toBe('none');
    }
  });

  it('refuses what starts like a header but is not one', () => {
    const bad = [
      Buffer.from('PROXY TCP4 203.0.113.7 10.0.0.2 51234\r\n'),
      Buffer.from('PROXY TCP4 2001:db8::7 10.0.0.2 1 2\r\n'),
      Buffer.from('PROXY TCP4 203.0.113.7 10.0.0.2 99999 443\r\n'),
      Buffer.from(`PROXY ${'x'.repeat(120)}`),
      Buffer.concat([signature, Buffer.from([0x31, 0x11, 0, 12]), Buffer.alloc(12)]),
      Buffer.concat([signature, Buffer.from([0x21, 0x11, 0, 4]), Buffer.alloc(4)]),
      Buffer.concat([signature, Buffer.from([0x21, 0x11, 0xff, 0xff])]),
    ];
    for (const bytes of bad) expect(readProxyHeader(bytes).kind).toBe('invalid');
  });
});

describe('trusted_proxies as a matcher', () => {
  it('matches addresses and ranges of both families, IPv4-mapped ones as IPv4', () => {
    const trusted = new TrustedProxies(['127.0.0.1', '10.1.0.0/16', 'fd00::/8']);
    expect(trusted.includes('127.0.0.1')).toBe(true);
    expect(trusted.includes('::ffff:10.1.200.3')).toBe(true);
    expect(trusted.includes('fd12::1')).toBe(true);
    expect(trusted.includes('127.0.0.2')).toBe(false);
    expect(trusted.includes('10.2.0.1')).toBe(false);
    expect(new TrustedProxies([]).includes('127.0.0.1')).toBe(false);
  });
});

describe('a connection from a balancer', () => {
  let server: Server | undefined;
  afterEach(
    () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  );

  /** A listener that reads a PROXY header from `trusted` peers and reports what it then sees. */
  async function listen(trusted: string[]) {
    const seen: Array<{ address?: string; port?: number; first: string }> = [];
    const handed = new Promise<void>((resolve) => {
      server = createServer((socket) =>
        acceptProxied(socket, new TrustedProxies(trusted), (accepted: Socket) => {
          accepted.once('data', (chunk: Buffer) => {
            seen.push({
              address: accepted.remoteAddress,
              port: accepted.remotePort,
              first: chunk.toString(),
            });
            accepted.end();
            resolve();
          });
          accepted.resume();
        }),
      );
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server!.address() as { port: number }).port;
    return { port, seen, handed };
  }

  function send(port: number, ...pieces: Buffer[]): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', async () => {
        for (const piece of pieces) {
          socket.write(piece);
          await new Promise((r) => setTimeout(r, 20));
        }
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });
  }

  it('reports the client a trusted balancer names, even when the header comes in pieces', async () => {
    const { port, seen, handed } = await listen(['127.0.0.1']);
    const header = v2({ addresses: [203, 0, 113, 7, 127, 0, 0, 1], ports: [51234, port] });
    await send(port, header.subarray(0, 5), header.subarray(5), Buffer.from('hello'));
    await handed;
    expect(seen).toEqual([{ address: '203.0.113.7', port: 51234, first: 'hello' }]);
  });

  it('leaves a connection without a header as it is', async () => {
    const { port, seen, handed } = await listen(['127.0.0.1']);
    await send(port, Buffer.from('SSH-2.0-client\r\n'));
    await handed;
    expect(seen[0]).toMatchObject({ address: '127.0.0.1', first: 'SSH-2.0-client\r\n' });
  });

  it('does not believe a header from anyone else: it stays part of the connection', async () => {
    const { port, seen, handed } = await listen(['10.9.9.9']);
    await send(port, Buffer.from('PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\nhello'));
    await handed;
    expect(seen[0]!.address).toBe('127.0.0.1');
    expect(seen[0]!.first.startsWith('PROXY TCP4 203.0.113.7')).toBe(true);
  });

  it('ends the connection when a trusted balancer sends a broken header', async () => {
    const { port, seen } = await listen(['127.0.0.1']);
    await send(port, Buffer.from('PROXY TCP4 nonsense\r\nhello'));
    expect(seen).toEqual([]);
  });
});
