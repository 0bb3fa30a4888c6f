import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { Plugin } from 'vite';

/**
 * Dev only: the page Vite serves has the server's placeholders in its meta tags. This plugin asks
 * the running server for its own /web/ page, with the browser's cookies, and copies the CSRF and
 * bearer values across, so a session made on the real server works in the hot-reloading console.
 */
const metaNames = ['grv_csrf_token', 'grv_bearer_token'];
const configScript = '/web/config.js';

interface PageRequest {
  cookie: string | undefined;
  res: ServerResponse;
}

function fetchPage(url: URL, cookie: string | undefined) {
  return new Promise<{ body: string; setCookie: string[] }>((resolve, reject) => {
    // The dev server's certificate is usually self-signed.
    const options = { headers: cookie ? { cookie } : {}, timeout: 5000, rejectUnauthorized: false };
    const onResponse = (res: http.IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ body, setCookie: res.headers['set-cookie'] ?? [] }));
    };
    const req =
      url.protocol === 'https:'
        ? https.request(url, options, onResponse)
        : http.request(url, options, onResponse);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

const metaPattern = (name: string) => new RegExp(`(<meta name="${name}" content=")([^"]*)(")`);

export function devMetaPlugin(target: string): Plugin {
  // transformIndexHtml gets no request object; the middleware below hands it over.
  const currentRequest = new AsyncLocalStorage<PageRequest>();
  return {
    name: 'postern-dev-meta',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use((req, res, next) =>
        currentRequest.run({ cookie: req.headers.cookie, res }, next),
      );
    },
    async transformIndexHtml(html) {
      const page = currentRequest.getStore();
      let served = '';
      try {
        const { body, setCookie } = await fetchPage(new URL('/web/', target), page?.cookie);
        served = body;
        // The server may issue its CSRF cookie with the page; pass it on so header and cookie match.
        if (setCookie.length > 0) page?.res.setHeader('set-cookie', setCookie);
      } catch (err) {
        console.warn(
          `[postern] could not read ${target}/web/: ${String(err)}; meta tags left empty`,
        );
      }
      // Vite's dev server prefixes the base to absolute URLs, even to config.js, which has it.
      const fixed = html.replace(`src="/web${configScript}"`, `src="${configScript}"`);
      return metaNames.reduce(
        (out, name) =>
          out.replace(metaPattern(name), (_m, open: string, _v, close: string) => {
            const value = metaPattern(name).exec(served)?.[2] ?? '';
            return `${open}${value}${close}`;
          }),
        fixed,
      );
    },
  };
}
