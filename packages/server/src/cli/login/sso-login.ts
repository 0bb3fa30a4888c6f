import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  sshCertsResponseSchema,
  ssoConsoleLoginResponseSchema,
  ssoConsolePaths,
  ssoErrorRoutes,
  type PingResponse,
  type SshCertsResponse,
} from '@postern/contracts';
import type { Print } from '../table.js';
import { LoginRefusedError, type ProxyClient } from './proxy-client.js';

/** As long as the proxy keeps the link; the person is at the provider meanwhile. */
const waitMs = 3 * 60_000;
const callbackPath = '/callback';

/** A certificate from an SSO sign-in, and the browser still waiting for the last word. */
export interface SsoHandOver {
  certificate: SshCertsResponse;
  /** Sends the browser to the success page, or (given an error) to the error page; closes. */
  finish(error?: unknown): void;
}

/**
 * `postern login --auth NAME` (docs/cli-login.md): listen on 127.0.0.1, have the proxy start a
 * sign-in whose code comes back to that listener only, let the person sign in in a browser, then
 * trade the code and our secret for the certificate. Only this process knows the secret; the
 * proxy holds its hash.
 */
export async function ssoLogin(
  client: ProxyClient,
  ping: PingResponse,
  connectorName: string,
  request: { pub_key: string; ttl?: number },
  options: { print: Print; openBrowser: boolean },
): Promise<SsoHandOver> {
  const connector = ping.auth.providers.find((provider) => provider.name === connectorName);
  if (!connector) {
    const names = ping.auth.providers.map((provider) => provider.name).join(', ');
    throw new LoginRefusedError(
      `the proxy has no connector named ${connectorName}` +
        (names ? ` (its connectors: ${names})` : ' (it has none)'),
    );
  }
  const secret = randomBytes(32).toString('base64url');
  const loopback = await listenOnLoopback();
  try {
    const { redirect_url: url } = await client.post(
      ssoConsolePaths.login(connector.type),
      {
        connector_id: connector.name,
        redirect_url: `http://127.0.0.1:${loopback.port}${callbackPath}`,
        secret_hash: createHash('sha256').update(secret).digest('base64url'),
        ...request,
      },
      ssoConsoleLoginResponseSchema,
    );
    options.print(`Open this URL in a browser to sign in: ${url}`);
    if (options.openBrowser) openInBrowser(url);
    const { code, browser } = await loopback.code;
    const answer = (error?: unknown) => {
      const page =
        error === undefined
          ? ssoErrorRoutes.success
          : `${ssoErrorRoutes.login}?details=${encodeURIComponent(messageOf(error))}`;
      const location = new URL(page, client.base).toString();
      browser.writeHead(302, { location, connection: 'close' }).end();
      loopback.close();
    };
    try {
      const certificate = await client.post(
        ssoConsolePaths.exchange,
        { code, secret },
        sshCertsResponseSchema,
      );
      return { certificate, finish: answer };
    } catch (error) {
      answer(error);
      throw error;
    }
  } catch (error) {
    loopback.close();
    throw error;
  }
}

/**
 * The listener the browser comes back to: the first `GET /callback?code=…` is kept waiting for
 * our answer; anything else is 404. Gives up after `waitMs`, or on ctrl-c.
 */
async function listenOnLoopback() {
  let settle!: {
    resolve: (v: { code: string; browser: ServerResponse }) => void;
    reject: (e: Error) => void;
  };
  const code = new Promise<{ code: string; browser: ServerResponse }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let taken = false;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const value = url.searchParams.get('code');
    if (request.method !== 'GET' || url.pathname !== callbackPath || !value || taken) {
      response.writeHead(404, { 'content-type': 'text/plain', connection: 'close' });
      response.end('not found');
      return;
    }
    taken = true;
    settle.resolve({ code: value, browser: response });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const timer = setTimeout(
    () =>
      settle.reject(new LoginRefusedError('no sign-in within 3 minutes: run postern login again')),
    waitMs,
  );
  const interrupted = () => settle.reject(new LoginRefusedError('login cancelled'));
  process.once('SIGINT', interrupted);
  const close = () => {
    clearTimeout(timer);
    process.removeListener('SIGINT', interrupted);
    server.close();
    // A browser may hold spare connections open; give the last answer a moment to leave.
    setTimeout(() => server.closeAllConnections(), 500).unref();
  };
  // Settled either way, the wait is over.
  void code.then(
    () => {
      clearTimeout(timer);
      process.removeListener('SIGINT', interrupted);
    },
    () => undefined,
  );
  return { port: (server.address() as AddressInfo).port, code, close };
}

/** Best effort: a desktop opens the link; without one (or with --no-browser) it is printed only. */
function openInBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? null : 'xdg-open';
  if (!command) return;
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the printed URL is enough.
  }
}

const messageOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).slice(0, 300);
