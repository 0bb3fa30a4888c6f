import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { peekConnection, type Peeked } from './peek-connection.js';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A loopback connection: the server's side to peek at, the client's to write with. */
async function connection(): Promise<{ accepted: Socket; client: Socket }> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  client.on('error', () => undefined);
  return { accepted: await accepted, client };
}

/** Decides once a line has come: the line is consumed, what follows is left for the reader. */
const firstLine = (bytes: Buffer): Peeked<string> | undefined => {
  const end = bytes.indexOf('\n');
  return end < 0 ? undefined : { decision: bytes.subarray(0, end).toString(), consumed: end + 1 };
};

function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('end', () => resolve(text));
    socket.resume();
  });
}

describe('peekConnection', () => {
  it('decides on bytes that come in pieces and hands on the rest unread, paused', async () => {
    const { accepted, client } = await connection();
    const decided = new Promise<string>((resolve) =>
      peekConnection(accepted, 5_000, firstLine, resolve),
    );
    client.write('hel');
    await new Promise((resolve) => setTimeout(resolve, 20));
    client.end('lo\nand the rest');
    expect(await decided).toBe('hello');
    expect(accepted.isPaused()).toBe(true);
    expect(await readAll(accepted)).toBe('and the rest');
  });

  it('cuts a connection that says too little in time', async () => {
    const { accepted, client } = await connection();
    let decided = false;
    peekConnection(accepted, 100, firstLine, () => (decided = true));
    client.write('no line end');
    await new Promise((resolve) => accepted.once('close', resolve));
    expect(decided).toBe(false);
  });

  it('takes a reset before the decision without an unhandled error', async () => {
    const { accepted, client } = await connection();
    let decided = false;
    peekConnection(accepted, 5_000, firstLine, () => (decided = true));
    client.resetAndDestroy();
    await new Promise((resolve) => accepted.once('close', resolve));
    expect(decided).toBe(false);
    expect(accepted.listenerCount('data')).toBe(0);
  });
});
