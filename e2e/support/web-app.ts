import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** What the upstream app saw of one request (HTTP or WebSocket upgrade). */
export interface SeenRequest {
  url: string;
  headers: IncomingHttpHeaders;
}

export interface RunningWebApp {
  /** `http://127.0.0.1:<port>`: the app's `uri` for Postern. */
  uri: string;
  /** Every request and upgrade the app received, oldest first. */
  seen: SeenRequest[];
  /**
   * Where the app checks its JWTs, set once Postern listens: the proxy's public URL (the `iss`),
   * the app's own public origin (the `aud`), and the loopback port the JWKS is fetched from.
   */
  trust(issuer: string, audience: string, jwksPort: number): void;
  stop(): Promise<void>;
}

/** The claims of a Postern app JWT the page shows. */
interface Claims {
  iss?: string;
  aud?: string[] | string;
  sub?: string;
  username?: string;
  exp?: number;
  nbf?: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A small real web application behind Postern, as an operator would put one there: a page that
 * sets a cookie of its own and shows the user from `Postern-Jwt-Assertion` (its ES256 signature
 * checked against the proxy's JWKS, "verified" only when it holds), and a WebSocket back to the
 * app that echoes messages and pushes a tick every second. Listens on 127.0.0.1 only.
 */
export async function startWebApp(): Promise<RunningWebApp> {
  const seen: SeenRequest[] = [];
  let trusted: { issuer: string; audience: string; jwksPort: number } | undefined;
  let keys: Map<string, JsonWebKey> | undefined;

  /** Postern's JWKS, fetched over loopback with the proxy's host name (its cert is self-signed). */
  async function jwks(): Promise<Map<string, JsonWebKey>> {
    if (keys) return keys;
    if (!trusted) throw new Error('no JWKS yet');
    const { issuer, jwksPort } = trusted;
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: jwksPort,
          path: '/.well-known/jwks.json',
          servername: new URL(issuer).hostname,
          headers: { host: new URL(issuer).host },
          rejectUnauthorized: false,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            res.statusCode === 200 ? resolve(text) : reject(new Error(`JWKS: ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
    const parsed = JSON.parse(body) as { keys: (JsonWebKey & { kid: string })[] };
    keys = new Map(parsed.keys.map((key) => [key.kid, key]));
    return keys;
  }

  /** The JWT's claims, and whether its signature, issuer, audience and times all check out. */
  async function check(token: string | undefined): Promise<{ claims: Claims; verdict: string }> {
    if (!token) return { claims: {}, verdict: 'no assertion' };
    const [head = '', body = '', signature = ''] = token.split('.');
    let claims: Claims;
    let header: { alg?: string; kid?: string };
    try {
      header = JSON.parse(Buffer.from(head, 'base64url').toString()) as typeof header;
      claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Claims;
    } catch {
      return { claims: {}, verdict: 'not verified: malformed' };
    }
    try {
      const jwk = (await jwks()).get(header.kid ?? '');
      if (header.alg !== 'ES256' || !jwk) return { claims, verdict: 'not verified: unknown key' };
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      const signed = Buffer.from(`${head}.${body}`);
      const sig = Buffer.from(signature, 'base64url');
      if (!verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, sig)) {
        return { claims, verdict: 'not verified: bad signature' };
      }
      const now = Date.now() / 1000;
      const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (claims.iss !== trusted!.issuer) return { claims, verdict: 'not verified: issuer' };
      if (!audiences.includes(trusted!.audience)) {
        return { claims, verdict: 'not verified: audience' };
      }
      if (!claims.exp || claims.exp < now || (claims.nbf ?? 0) > now) {
        return { claims, verdict: 'not verified: expired' };
      }
      return { claims, verdict: 'verified' };
    } catch (error) {
      return { claims, verdict: `not verified: ${(error as Error).message}` };
    }
  }

  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    void check(req.headers['postern-jwt-assertion'] as string | undefined).then(
      ({ claims, verdict }) => {
        const body = page({ user: claims.username ?? '', verdict, url: req.url ?? '' });
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          // The app's own cookie, next to Postern's on the same origin.
          'set-cookie': 'app-visit=yes; Path=/; Secure; SameSite=Lax',
        });
        res.end(body);
      },
    );
  });

  const sockets = new WebSocketServer({ server, path: '/ws' });
  sockets.on('connection', (socket: WebSocket, req) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    let tick = 0;
    const timer = setInterval(() => socket.send(`tick ${++tick}`), 1000);
    socket.on('message', (data) => socket.send(`echo ${String(data)}`));
    socket.on('close', () => clearInterval(timer));
    socket.on('error', () => clearInterval(timer));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    uri: `http://127.0.0.1:${port}`,
    seen,
    trust(issuer, audience, jwksPort) {
      trusted = { issuer, audience, jwksPort };
      keys = undefined;
    },
    async stop() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The app's page: who is signed in, whether the assertion checked out, and the WebSocket's state,
 * its last echo and tick count, each in an element the test reads by test id.
 */
function page({ user, verdict, url }: { user: string; verdict: string; url: string }): string {
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>E2E App</title>
<h1>E2E App</h1>
<p>Signed in as <strong data-testid="user">${escapeHtml(user)}</strong></p>
<p>Identity: <span data-testid="verdict">${escapeHtml(verdict)}</span></p>
<p>Requested: <code data-testid="requested">${escapeHtml(url)}</code></p>
<p>WebSocket: <span data-testid="ws-state">connecting</span></p>
<p>Echo: <span data-testid="ws-echo"></span></p>
<p>Ticks: <span data-testid="ws-ticks">0</span></p>
<script>
  const state = document.querySelector('[data-testid=ws-state]');
  const echo = document.querySelector('[data-testid=ws-echo]');
  const ticks = document.querySelector('[data-testid=ws-ticks]');
  const socket = new WebSocket('wss://' + location.host + '/ws');
  socket.onopen = () => {
    state.textContent = 'open';
    socket.send('hello from the page');
  };
  socket.onmessage = (event) => {
    const text = String(event.data);
    if (text.startsWith('tick ')) ticks.textContent = text.slice(5);
    else echo.textContent = text;
  };
  socket.onclose = (event) => {
    state.textContent = 'closed (' + event.code + ')';
  };
</script>
</html>
`;
}
