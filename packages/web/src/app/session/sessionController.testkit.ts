import type { SessionResponse } from '@postern/contracts';
import { vi } from 'vitest';
import { ApiError } from '../../api/apiError';
import { storeToken, type BearerToken } from '../../api/credentials';
import { createFakeClock, flushPromises } from '../../test/fakeClock';
import { MemoryStorage } from '../../test/memoryStorage';
import {
  createSessionController,
  type RenewLock,
  type SessionControllerDeps,
} from './sessionController';
import type { SessionApi } from './sessionApi';

// The session controller's tests: it under a fake clock, in-memory storage, an event target for a
// window and a scripted API, plus `otherTab` for what another tab does to shared storage.

export const s = 1000;
export const loginAgain = '/web/login?redirect_uri=%2Fweb%2Fclusters%3Fsort%3Dname';

export const apiError = (status: number) =>
  new ApiError('session gone', new Response('{}', { status }), 'not_authenticated');

export function renewResponse(token: string, expiresIn = 600): SessionResponse {
  return {
    type: 'bearer',
    token,
    expires_in: expiresIn,
    sessionExpires: '2030-01-01T00:00:00Z',
    sessionInactiveTimeout: 0,
  };
}

export interface Options {
  token?: Partial<BearerToken>;
  api?: Partial<SessionApi>;
  renewLock?: RenewLock;
  timing?: SessionControllerDeps['timing'];
  lastActive?: number;
}

export function setup(options: Options = {}) {
  const clock = createFakeClock();
  const storage = new MemoryStorage();
  const win = new EventTarget();
  const doc = Object.assign(new EventTarget(), {
    visibilityState: 'visible' as DocumentVisibilityState,
  });
  let renewals = 0;
  const api = {
    renew: vi.fn<SessionApi['renew']>(async () => renewResponse(`tok-renewed-${++renewals}`)),
    status: vi.fn<SessionApi['status']>(async () => undefined),
    deleteSession: vi.fn<SessionApi['deleteSession']>(async () => undefined),
  };
  if (options.api?.renew) api.renew.mockImplementation(options.api.renew);
  if (options.api?.status) api.status.mockImplementation(options.api.status);
  if (options.api?.deleteSession) api.deleteSession.mockImplementation(options.api.deleteSession);
  const navigate = vi.fn<(url: string) => void>();
  let unauthorized:
    ((error: unknown, usedToken: string) => Promise<string | undefined>) | undefined;
  storeToken(
    {
      accessToken: 'tok-1',
      expiresIn: 600,
      created: clock.now(),
      sessionExpires: '',
      sessionInactiveTimeout: 0,
      ...options.token,
    },
    storage,
  );
  if (options.lastActive !== undefined) {
    storage.setItem('grv_teleport_last_active', String(options.lastActive));
  }
  const session = createSessionController({
    storage,
    clock,
    win,
    doc,
    api,
    navigate,
    currentPage: () => '/web/clusters?sort=name',
    renewLock: options.renewLock,
    timing: options.timing,
    onUnauthorized: (handler) => {
      unauthorized = handler;
      return () => (unauthorized = undefined);
    },
  });
  /** What another tab does to shared storage, and the event this tab hears about it. */
  const otherTab = {
    set(key: string, value: string) {
      storage.setItem(key, value);
      win.dispatchEvent(new StorageEvent('storage', { key, newValue: value }));
    },
    remove(key: string) {
      storage.removeItem(key);
      win.dispatchEvent(new StorageEvent('storage', { key, newValue: null }));
    },
    broadcast(key: string, value: string) {
      win.dispatchEvent(new StorageEvent('storage', { key, newValue: value }));
      win.dispatchEvent(new StorageEvent('storage', { key, newValue: null }));
    },
  };
  return {
    clock,
    storage,
    win,
    doc,
    api,
    navigate,
    session,
    otherTab,
    unauthorized: () => unauthorized,
    async start() {
      session.start();
      await flushPromises();
    },
  };
}
