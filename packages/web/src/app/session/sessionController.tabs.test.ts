import { describe, expect, it, vi } from 'vitest';
import { flushPromises } from '../../test/fakeClock';
import { webLocksRenewLock, type RenewLock } from './sessionController';
import { loginAgain, renewResponse, s, setup } from './sessionController.testkit';

describe('across tabs', () => {
  it('skips renewing while another tab announces it is renewing, then picks up its token', async () => {
    const t = setup({ token: { expiresIn: 300 } });
    await t.start();
    await t.clock.advance(120 * s); // 180 s left
    t.otherTab.broadcast('grv_teleport_token_renew', 'true');
    await t.clock.advance(15 * s); // 165 s left: would renew
    expect(t.api.renew).not.toHaveBeenCalled();

    t.otherTab.set(
      'grv_teleport_token',
      JSON.stringify({
        accessToken: 'tok-from-tab-2',
        expiresIn: 600,
        created: t.clock.now(),
        sessionExpires: '',
        sessionInactiveTimeout: 0,
      }),
    );
    t.otherTab.broadcast('grv_teleport_token_renew', 'false');
    expect(t.session.token()?.accessToken).toBe('tok-from-tab-2');
    await t.clock.advance(15 * s);
    expect(t.api.renew).not.toHaveBeenCalled();
    expect(t.api.status).toHaveBeenCalled();
  });

  it('renews itself when the other tab never finishes (after the grace period)', async () => {
    const t = setup({ token: { expiresIn: 200 } });
    await t.start();
    await t.clock.advance(15 * s); // 185 s left
    t.otherTab.broadcast('grv_teleport_token_renew', 'true');
    await t.clock.advance(15 * s); // 170 s left, other tab renewing for 15 s: wait
    expect(t.api.renew).not.toHaveBeenCalled();
    await t.clock.advance(15 * s); // 30 s of silence: this tab renews
    expect(t.api.renew).toHaveBeenCalledTimes(1);
  });

  it('does not wait for a tab that died mid-renewal when its own token would run out first', async () => {
    // A short bearer (auth.bearer_ttl: 25s): the grace for the other tab is longer than its life.
    let renewals = 0;
    const t = setup({
      token: { expiresIn: 25 },
      api: { renew: async () => renewResponse(`tok-renewed-${++renewals}`, 25) },
    });
    await t.start();
    expect(t.api.renew).toHaveBeenCalledTimes(1);
    t.otherTab.broadcast('grv_teleport_token_renew', 'true'); // and never 'false'
    await t.clock.advance(15 * s);
    expect(t.api.renew).toHaveBeenCalledTimes(2);
    await t.clock.advance(60 * s);
    expect(t.navigate).not.toHaveBeenCalled();
    expect(t.session.token()?.accessToken).toMatch(/^tok-renewed-/);
  });

  it('skips renewing when the renew lock is held by another tab', async () => {
    const heldElsewhere: RenewLock = async () => undefined;
    const t = setup({ token: { expiresIn: 100 }, renewLock: heldElsewhere });
    await t.start();
    expect(t.api.renew).not.toHaveBeenCalled();
    expect(t.navigate).not.toHaveBeenCalled();
  });

  it('does not renew again when another tab renewed while this one waited for the lock', async () => {
    const tab: { current?: ReturnType<typeof setup> } = {};
    const lock: RenewLock = async (fn) => {
      const t = tab.current;
      t?.storage.setItem(
        'grv_teleport_token',
        JSON.stringify({
          accessToken: 'tok-while-waiting',
          expiresIn: 600,
          created: t.clock.now(),
          sessionExpires: '',
          sessionInactiveTimeout: 0,
        }),
      );
      return fn();
    };
    const t = (tab.current = setup({ token: { expiresIn: 100 }, renewLock: lock }));
    await t.start();
    expect(t.api.renew).not.toHaveBeenCalled();
    expect(t.session.token()?.accessToken).toBe('tok-while-waiting');
  });

  it('logs out when another tab removes the token, without deleting the session again', async () => {
    const t = setup();
    await t.start();
    t.otherTab.remove('grv_teleport_token');
    await flushPromises();
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
    expect(t.api.deleteSession).not.toHaveBeenCalled();
  });

  it('logs out when another tab clears all of storage', async () => {
    const t = setup();
    await t.start();
    t.storage.clear();
    t.win.dispatchEvent(new StorageEvent('storage', { key: null }));
    await flushPromises();
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
  });

  it('webLocksRenewLock runs the renewal only when the lock is free', async () => {
    const request = vi.fn(
      async (_name: string, _options: LockOptions, callback: (lock: Lock | null) => unknown) =>
        callback(null),
    );
    const lock = webLocksRenewLock({ request } as unknown as LockManager);
    const fn = vi.fn(async () => 'renewed');
    await expect(lock(fn)).resolves.toBeUndefined();
    expect(fn).not.toHaveBeenCalled();
    expect(request).toHaveBeenCalledWith(
      'postern_token_renew',
      { ifAvailable: true },
      expect.any(Function),
    );
    request.mockImplementation(async (_n, _o, callback) => callback({ name: 'x' } as Lock));
    await expect(lock(fn)).resolves.toBe('renewed');
  });
});
