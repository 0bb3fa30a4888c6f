import type { Command } from 'commander';
import { connect } from 'node:net';
import type { Wing } from '../wing.js';
import { echoRoutes } from './echo.routes.js';
import { EchoService } from './echo.service.js';

/**
 * The smallest complete wing, for docs/ARCHITECTURE.md ("Adding an access protocol") and its
 * test: a service, a route, a listener, a CLI command and a resource kind. It is not in the
 * registry (wings/index.ts), so `postern start` does not serve it; its test adds it.
 */
export const exampleWing = {
  name: 'example',
  build: () => ({ echo: new EchoService() }),
  routes: async (server, { echo }, ctx) => {
    await server.register(echoRoutes, { echo, addresses: ctx.addresses });
  },
  listeners: [
    {
      name: 'echo',
      start: ({ echo }) => echo.listen({ host: '127.0.0.1', port: 0 }),
    },
  ],
  kinds: ({ echo }) => [{ kind: 'echo', count: () => echo.connections() }],
} satisfies Wing<{ echo: EchoService }>;

/**
 * Its command, `postern echo-check PORT`. A wing's commands are listed in wings/cli.ts, apart
 * from the registry, so the CLI starts without loading the wings' server modules.
 */
export function addEchoCommands(program: Command): void {
  program
    .command('echo-check <port>')
    .description('send a line to an echo listener on this host and print the answer')
    .action(async (port: string) => console.log(await echoOnce(Number(port), 'hello')));
}

/** Sends `line` to the echo listener on loopback `port` and resolves with what came back. */
export function echoOnce(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(line));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}
