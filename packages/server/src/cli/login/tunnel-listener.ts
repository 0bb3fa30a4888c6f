import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { pipeline } from 'node:stream';
import { signRequest } from '../../ssh/signed-request.js';
import { currentLogin } from './session-commands.js';

export interface TunnelListener {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * `postern proxy app NAME`, `postern proxy db NAME`: a listener on loopback whose every connection
 * is tunnelled to the resource over the proxy's HTTPS port (a WebSocket per connection to `path`,
 * signed with the certificate of `postern login`), so any TCP client works against
 * `127.0.0.1:PORT`. `name` is what log lines call the resource.
 */
export async function listenThroughProxy(
  env: NodeJS.ProcessEnv,
  target: {
    name: string;
    path: string;
    /**
     * The certificate to sign a new connection with instead of the login's (undefined: the
     * login's): a per-session MFA one, from `tunnelCertificates`.
     */
    certificate?: () => Promise<string | undefined>;
  },
  port: number,
  log: (line: string) => void = () => undefined,
): Promise<TunnelListener> {
  const { name, path } = target;
  // Loaded here rather than at the top: every postern command's start would pay for ws.
  const { default: WebSocket, createWebSocketStream } = await import('ws');
  const profile = await currentLogin(env);
  const [privateKeyPem, certificateLine] = await Promise.all([
    readFile(profile.key_path, 'utf8'),
    readFile(profile.cert_path, 'utf8').then((text) => text.trim()),
  ]);
  const base = new URL(profile.proxy);
  const url = new URL(path, base);
  url.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';

  const tunnel = (local: Socket) => {
    local.pause();
    // Interactive protocols (a database's queries) trade small messages: no Nagle wait.
    local.setNoDelay(true);
    (target.certificate?.() ?? Promise.resolve(undefined)).then(
      (certificate) => open(local, certificate ?? certificateLine),
      (error: Error) => {
        log(`no connection to ${name}: ${error.message}`);
        local.destroy();
      },
    );
  };

  const open = (local: Socket, certificate: string) => {
    const headers = signRequest({
      method: 'GET',
      pathAndQuery: path,
      certificateLine: certificate,
      privateKeyPem,
      now: Date.now(),
    });
    const socket = new WebSocket(url, {
      headers,
      rejectUnauthorized: !profile.insecure,
      perMessageDeflate: false,
    });
    socket.once('unexpected-response', (request, response) => {
      local.destroy();
      void refusalMessage(response).then((message) => {
        request.destroy();
        const why = message ? `: ${message}` : '';
        log(`the proxy refused the connection to ${name}: HTTP ${response.statusCode}${why}`);
      });
    });
    socket.once('error', (error) => {
      log(`cannot reach the proxy for ${name}: ${error.message}`);
      local.destroy();
    });
    socket.once('open', () => {
      const remote = createWebSocketStream(socket);
      pipeline(local, remote, () => undefined);
      pipeline(remote, local, () => undefined);
      local.resume();
    });
  };

  const server = createServer(tunnel);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    server,
    port: bound,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The `message` of a refusal's JSON body (the proxy's or a leaf's), if it has one. */
async function refusalMessage(response: IncomingMessage): Promise<string | undefined> {
  let text = '';
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8');
      if (text.length > 16_384) break;
    }
    const body = JSON.parse(text) as { message?: unknown };
    return typeof body.message === 'string' ? body.message : undefined;
  } catch {
    return undefined;
  }
}
