// An app session cookie, got the way a browser gets one (docs/apps.md, "How a browser reaches an
// app"): the launcher's POST /v1/webapi/sessions/app with the web session, then the exchange on
// the app's own host, which sets `__Host-postern-app`.
import { randomBytes } from 'node:crypto';
import http from 'node:http';

/**
 * Resolves with `__Host-postern-app=...` for `appHost`, as `session` (createWebSession) in a page
 * of the console at `consoleOrigin`.
 */
export async function appSessionCookie(postern, session, { appHost, consoleOrigin, log }) {
  // The server learns of the role the CLI wrote through its backend watch, a moment later.
  const deadline = Date.now() + 20_000;
  let launched;
  for (;;) {
    launched = await launch(postern, session, appHost, consoleOrigin);
    if (launched.status === 200 || Date.now() > deadline) break;
    log(`waiting for the proxy to allow the launch (${launched.status} ${launched.body})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (launched.status !== 200) {
    throw new Error(`POST /v1/webapi/sessions/app: ${launched.status} ${launched.body}`);
  }
  const exchange = new URL(JSON.parse(launched.body).redirectUrl);
  const res = await send({
    port: postern.port,
    path: exchange.pathname + exchange.search,
    headers: { host: appHost },
  });
  const cookie = String(res.headers['set-cookie'] ?? '').split(';')[0];
  if (res.status !== 302 || !cookie.startsWith('__Host-postern-app=')) {
    throw new Error(`the exchange at ${appHost} answered ${res.status} without the app cookie`);
  }
  return cookie;
}

/** The launcher's call, with the web session's cookie and bearer and the CSRF double submit. */
function launch(postern, session, appHost, consoleOrigin) {
  const csrf = randomBytes(32).toString('hex');
  const body = JSON.stringify({ fqdn: appHost, cluster_name: postern.clusterName, path: '/' });
  return send(
    {
      port: postern.port,
      method: 'POST',
      path: '/v1/webapi/sessions/app',
      headers: {
        host: new URL(consoleOrigin).host,
        origin: consoleOrigin,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        cookie: `${session.cookie}; __Host-grv_csrf=${csrf}`,
        authorization: `Bearer ${session.bearer}`,
        'x-csrf-token': csrf,
      },
    },
    body,
  );
}

function send(opts, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', agent: false, ...opts }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
