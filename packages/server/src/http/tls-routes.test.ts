import { createServer, type AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { serverNameOf } from './tls-routes.js';

// The server name of a ClientHello, read before TLS starts: what routes kubectl's connections to
// the Kubernetes listener on the web port.

/** The first bytes a real TLS client sends, asking for `servername`. */
async function clientHello(servername?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk);
        socket.destroy();
        server.close();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      const client = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
      client.on('error', () => undefined);
    });
    server.on('error', reject);
  });
}

describe('serverNameOf', () => {
  it('reads the name a TLS client asks for', async () => {
    expect(serverNameOf(await clientHello('kube.postern.internal'))).toBe('kube.postern.internal');
  });

  it('says incomplete until the first record is all there, and nothing without a name', async () => {
    const hello = await clientHello('kube.postern.internal');
    expect(serverNameOf(hello.subarray(0, 3))).toBe('incomplete');
    expect(serverNameOf(hello.subarray(0, hello.length - 1))).toBe('incomplete');
    // Node sends no server name for an address.
    expect(serverNameOf(await clientHello())).toBeUndefined();
  });

  it('takes what is not a ClientHello for no name, never an error', () => {
    expect(serverNameOf(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toBeUndefined();
    const truncated = Buffer.from([22, 3, 1, 0, 10, 1, 0, 0, 6, 3, 3, 0, 0, 0, 0]);
    expect(serverNameOf(truncated)).toBeUndefined();
  });
});
