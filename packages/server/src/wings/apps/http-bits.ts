import type { ServerResponse } from 'node:http';

/** A small HTML page for what the proxy itself answers on an app host. */
export function errorPage(res: ServerResponse, status: number, message: string): void {
  const escaped = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = `<!doctype html><meta charset="utf-8"><title>${status}</title><p>${escaped}</p>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'",
  });
  res.end(body);
}

/** The app session cookie: this origin only (`__Host-`), never to scripts, sent on navigation. */
export function setCookie(res: ServerResponse, name: string, value: string, expires: Date): void {
  res.appendHeader(
    'set-cookie',
    `${name}=${value}; Path=/; Expires=${expires.toUTCString()}; Secure; HttpOnly; SameSite=Lax`,
  );
}
