import path from 'node:path';
import type { BrowserContext } from '@playwright/test';
import { repoRoot } from './postern-process.js';

/**
 * Signs a browser in by writing a web session into the running server's own SQLite store, through
 * the server's built modules. Faster than the sign-in screen, for
 * tests that are not about signing in.
 */
export async function signIn(
  context: BrowserContext,
  roles: string[],
  user = 'alice',
  /** A server of the spec's own; the shared one by default. */
  server = { url: process.env.POSTERN_E2E_URL!, dataDir: process.env.POSTERN_E2E_DATA_DIR! },
) {
  const dist = path.join(repoRoot, 'packages/server/dist');
  const { openBackend } = await import(path.join(dist, 'backend/index.js'));
  const { WebSessionStore } = await import(
    path.join(dist, 'identity/web-sessions/web-sessions.store.js')
  );
  const { WebSessionService } = await import(
    path.join(dist, 'identity/web-sessions/web-sessions.service.js')
  );
  const backend = await openBackend({
    type: 'sqlite',
    path: path.join(server.dataDir, 'postern.db'),
  });
  try {
    const session = await new WebSessionService(new WebSessionStore(backend)).create(user, roles);
    await context.addCookies([
      {
        name: '__Host-session',
        value: session.id,
        url: server.url,
        httpOnly: true,
        secure: true,
        sameSite: 'Strict',
      },
    ]);
    return session;
  } finally {
    await backend.close();
  }
}
