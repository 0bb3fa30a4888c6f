import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { clientConfigGlobal, webPaths, type ClientConfigInput } from '@postern/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  WebSession,
  WebSessionService,
} from '../identity/web-sessions/web-sessions.service.js';
import { setSessionCookie } from '../identity/auth/session-cookie.js';
import { consoleNotBuiltPage, renderIndex } from '../web/index-page.js';
import { sessionCookieName } from '../http/request-identity.js';
import { csrfCookieName } from './csrf.js';

export interface WebConsoleOptions {
  /** The console's build output (packages/web/dist). */
  distDir: string;
  sessions: WebSessionService;
  clientConfig: () => ClientConfigInput;
  /** True while a lock is in force on the session's user: the page then hands out no bearer. */
  locked?: (session: WebSession) => boolean;
}

const immutable = 'public, max-age=31536000, immutable';
/** The console's icon, from packages/web/public. */
const faviconFile = 'favicon.svg';
const secureCookie = { httpOnly: true, secure: true, sameSite: 'strict', path: '/' } as const;

/** Serves the single-page console: its index (never cached), config script and hashed assets. */
export async function webConsole(app: FastifyInstance, options: WebConsoleOptions): Promise<void> {
  const indexFile = path.join(options.distDir, 'index.html');
  const template = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : null;
  const rootFiles = listRootFiles(options.distDir);

  await app.register(fastifyStatic, {
    root: path.join(options.distDir, 'assets'),
    prefix: webPaths.assets,
    decorateReply: true,
    index: false,
    cacheControl: false,
    setHeaders: (reply) => reply.header('Cache-Control', immutable),
  });

  app.get('/', { config: { access: 'public' } }, (_request, reply) =>
    reply.redirect(webPaths.root),
  );
  // Browsers ask for /favicon.ico where a page names no icon (a JSON answer, a download).
  if (rootFiles.has(faviconFile)) {
    app.get('/favicon.ico', { config: { access: 'public' } }, (_request, reply) =>
      reply.redirect(`${webPaths.root}/${faviconFile}`, 301),
    );
  }

  app.get(webPaths.configScript, { config: { access: 'public' } }, (_request, reply) => {
    const body = `var ${clientConfigGlobal} = ${JSON.stringify(options.clientConfig())};\n`;
    return reply
      .header('Cache-Control', 'no-store')
      .type('application/javascript; charset=utf-8')
      .send(body);
  });

  const serveIndex = async (request: FastifyRequest, reply: FastifyReply) => {
    const file = request.url.split('?')[0]?.slice(webPaths.root.length + 1) ?? '';
    if (rootFiles.has(file)) {
      return reply.header('Cache-Control', 'public, max-age=3600').sendFile(file, options.distDir);
    }
    reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8');
    if (!template) return reply.status(503).send(consoleNotBuiltPage);
    const csrfToken = csrfTokenFor(request);
    reply.setCookie(csrfCookieName, csrfToken, secureCookie);
    const cookie = await options.sessions.fromCookie(request.cookies[sessionCookieName]);
    // The page was reloaded while a renewal was under way: carry on with the renewed session.
    const found = cookie && (await options.sessions.latest(cookie));
    if (found && found.id !== cookie?.id) setSessionCookie(reply, found);
    // A locked user's page loads signed out, so the console shows sign-in (which says why).
    const session = found && !options.locked?.(found) ? found : null;
    const bearer = session ? await options.sessions.responseFor(session) : undefined;
    // Loading a page is activity: it keeps an idle timeout from ending the session.
    if (session) await options.sessions.noteActivity(session);
    return reply.send(renderIndex(template, { csrfToken, bearer }));
  };
  app.get(webPaths.root, { config: { access: 'public' } }, serveIndex);
  app.get(`${webPaths.root}/*`, { config: { access: 'public' } }, serveIndex);
}

/** Keeps the browser's CSRF token when it has a well-formed one, so open tabs stay valid. */
function csrfTokenFor(request: FastifyRequest): string {
  const existing = request.cookies[csrfCookieName];
  return existing && /^[0-9a-f]{64}$/.test(existing) ? existing : randomBytes(32).toString('hex');
}

/** Files at the top of the build (favicon and the like); index.html is never served raw. */
function listRootFiles(distDir: string): Set<string> {
  if (!existsSync(distDir)) return new Set();
  return new Set(
    readdirSync(distDir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name !== 'index.html')
      .map((entry) => entry.name),
  );
}
