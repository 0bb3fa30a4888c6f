import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { acceptExec, type AcceptExecOptions } from './accept-exec.js';
import type { ExecServerSession } from './session.js';

export interface ExecTestServer {
  /** …/exec on the loopback server; add the query. */
  url: string;
  /** Sessions as they were accepted, and the refusals. */
  sessions: ExecServerSession[];
  refusals: Error[];
  close(): Promise<void>;
}

/** A plain HTTP server on 127.0.0.1 that takes exec upgrades and hands each session to `run`. */
export async function startExecServer(
  run: (session: ExecServerSession) => void | Promise<void>,
  options: AcceptExecOptions = {},
): Promise<ExecTestServer> {
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const sessions: ExecServerSession[] = [];
  const refusals: Error[] = [];
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    acceptExec(req, socket, head, options).then(
      (session) => {
        sessions.push(session);
        void Promise.resolve(run(session)).catch((error: unknown) => refusals.push(error as Error));
      },
      (error: unknown) => refusals.push(error as Error),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1/namespaces/default/pods/test/exec`,
    sessions,
    refusals,
    close: () =>
      new Promise((resolve) => {
        for (const socket of upgraded) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
