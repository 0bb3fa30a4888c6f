import { clientConfigSchema, type UserAcl } from '@postern/contracts';
import { waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { appRoutes } from '../../app/router';
import { jsonResponse, renderRoutes, storeTestBearer } from '../../test/authConfig';
import { userContextFixture } from '../../test/userContexts';
import { type FakeEngine, fakeXtermEngines } from './fakeEngine';
import { FakeSocket } from './tty/fakeSocket';

/**
 * For the pages that run a terminal over a WebSocket (the server console, Kubernetes exec, the
 * SQL console): the browser's WebSocket is a FakeSocket the test reaches, in the order opened,
 * fresh for each test. Call once at the top of the test file.
 */
export function fakeSocketsPerTest() {
  const sockets: FakeSocket[] = [];
  class BrowserSocket extends FakeSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  beforeEach(() => {
    sockets.length = 0;
    vi.stubGlobal('WebSocket', BrowserSocket);
  });
  afterEach(() => vi.unstubAllGlobals());
  return {
    sockets,
    /** The `count`-th socket opened, once it is. */
    async nth(count: number): Promise<FakeSocket> {
      await waitFor(() => expect(sockets).toHaveLength(count));
      return sockets[count - 1]!;
    },
  };
}

/**
 * The FakeEngines of a file that mocks terminalEngine with withFakeXterm, in the order made,
 * fresh for each test. Call once at the top of the test file.
 */
export function fakeXtermPerTest(): FakeEngine[] {
  beforeEach(() => {
    fakeXtermEngines.length = 0;
  });
  return fakeXtermEngines;
}

/**
 * Renders the app's routes at `path` for a signed-in browser whose user context grants `acl`.
 * `answer` serves the page's other calls (undefined: a 404 error document).
 */
export function renderSignedIn(
  path: string,
  acl: UserAcl,
  options: { answer?: (url: string) => Response | undefined; ui?: object } = {},
) {
  storeTestBearer();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === '/v1/webapi/sites/root/context') return jsonResponse(userContextFixture(acl));
      return (
        options.answer?.(url) ??
        jsonResponse({ error: { message: 'not found', code: 'not_found' } }, 404)
      );
    }),
  );
  const config = clientConfigSchema.parse({ proxyCluster: 'root', ui: options.ui });
  return renderRoutes(appRoutes(), path, config).router;
}

/** The `params` JSON of a terminal socket's URL. */
export const paramsOf = (socket: FakeSocket) =>
  JSON.parse(new URL(socket.url).searchParams.get('params') ?? '') as unknown;
