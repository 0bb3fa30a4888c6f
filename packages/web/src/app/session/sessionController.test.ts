import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/apiError';
import { readStoredToken } from '../../api/credentials';
import { flushPromises } from '../../test/fakeClock';
import { sessionTiming } from './constants';
import { apiError, loginAgain, renewResponse, s, setup } from './sessionController.testkit';

describe('token check: renewal and status poll', () => {
  it('polls user/status at start and every 15 s while more than 180 s remain, without renewing', async () => {
    const t = setup();
    await t.start();
    expect(t.api.status).toHaveBeenCalledTimes(1);
    await t.clock.advance(15 * s);
    expect(t.api.status).toHaveBeenCalledTimes(2);
    await t.clock.advance(14 * s);
    expect(t.api.status).toHaveBeenCalledTimes(2);
    expect(t.api.renew).not.toHaveBeenCalled();
  });

  it('renews on the first check with less than 180 s left, and stores the new token', async () => {
    const t = setup();
    await t.start();
    const changed = vi.fn();
    t.session.subscribe(changed);
    // 420 s in, exactly 180 s remain: not yet.
    await t.clock.advance(420 * s);
    expect(t.api.renew).not.toHaveBeenCalled();
    await t.clock.advance(15 * s);
    expect(t.api.renew).toHaveBeenCalledTimes(1);
    const stored = readStoredToken(t.storage);
    expect(stored).toMatchObject({
      accessToken: 'tok-renewed-1',
      expiresIn: 600,
      created: t.clock.now(),
    });
    expect(t.session.token()).toEqual(stored);
    expect(changed).toHaveBeenCalled();
    // The next renewal comes 180 s before the new token ends.
    await t.clock.advance(420 * s);
    expect(t.api.renew).toHaveBeenCalledTimes(1);
    await t.clock.advance(15 * s);
    expect(t.api.renew).toHaveBeenCalledTimes(2);
    expect(t.navigate).not.toHaveBeenCalled();
  });

  it('keeps a short-lived bearer alive across several lifetimes', async () => {
    const t = setup({
      token: { expiresIn: 20 },
      api: { renew: vi.fn(async () => renewResponse(`tok-${Math.random()}`, 20)) },
    });
    await t.start();
    expect(t.api.renew).toHaveBeenCalledTimes(1); // at start: 20 s < 180 s
    await t.clock.advance(65 * s);
    expect(t.api.renew).toHaveBeenCalledTimes(5);
    expect(t.navigate).not.toHaveBeenCalled();
  });

  it('broadcasts the renewing flag to other tabs (write then delete), start and end', async () => {
    const t = setup({ token: { expiresIn: 100 } });
    await t.start();
    expect(t.storage.writes.filter(([, key]) => key === 'grv_teleport_token_renew')).toEqual([
      ['set', 'grv_teleport_token_renew', 'true'],
      ['remove', 'grv_teleport_token_renew'],
      ['set', 'grv_teleport_token_renew', 'false'],
      ['remove', 'grv_teleport_token_renew'],
    ]);
    expect(t.storage.getItem('grv_teleport_token_renew')).toBeNull();
  });

  it('polls status only when more than 30 s remain', async () => {
    // A renew threshold below the poll threshold isolates the poll's own rule.
    const t = setup({
      token: { expiresIn: 40 },
      timing: { ...sessionTiming, renewWhenRemainingBelowMs: 10 * s },
    });
    await t.start(); // 40 s left
    expect(t.api.status).toHaveBeenCalledTimes(1);
    await t.clock.advance(15 * s); // 25 s left
    await t.clock.advance(15 * s); // 10 s left
    expect(t.api.status).toHaveBeenCalledTimes(1);
    expect(t.api.renew).not.toHaveBeenCalled();
  });

  it.each([401, 403])(
    'a %i from the status poll logs out to login with redirect_uri',
    async (status) => {
      const t = setup({ api: { status: vi.fn(async () => Promise.reject(apiError(status))) } });
      await t.start();
      // A moment for another tab that may be storing a newer token; none comes.
      expect(t.navigate).not.toHaveBeenCalled();
      await t.clock.advance(1 * s);
      expect(t.navigate).toHaveBeenCalledWith(loginAgain);
      expect(t.api.deleteSession).toHaveBeenCalledTimes(1);
      expect(readStoredToken(t.storage)).toBeNull();
    },
  );

  it('a lock (403 locked:) from the poll or the renewal leaves its message for the sign-in page', async () => {
    const locked = () =>
      new ApiError('locked: under investigation', new Response('{}', { status: 403 }));
    const polled = setup({ api: { status: vi.fn(async () => Promise.reject(locked())) } });
    polled.storage.setItem('grv_teleport_locked_notice', 'an older lock');
    await polled.start();
    await polled.clock.advance(1 * s);
    expect(polled.navigate).toHaveBeenCalledWith(loginAgain);
    expect(polled.storage.getItem('grv_teleport_locked_notice')).toBe('under investigation');

    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const renewed = setup({
      token: { expiresIn: 120 },
      api: { renew: vi.fn(async () => Promise.reject(locked())) },
    });
    await renewed.start();
    await renewed.clock.advance(1 * s);
    expect(renewed.navigate).toHaveBeenCalledWith(loginAgain);
    expect(renewed.storage.getItem('grv_teleport_locked_notice')).toBe('under investigation');
    vi.restoreAllMocks();
  });

  it('any other ending leaves no lock message', async () => {
    const t = setup({ api: { status: vi.fn(async () => Promise.reject(apiError(403))) } });
    await t.start();
    await t.clock.advance(1 * s);
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
    expect(t.storage.getItem('grv_teleport_locked_notice')).toBeNull();
  });

  it('a 401 does not log out when another tab stores a newer token right after', async () => {
    const t = setup({ api: { status: vi.fn(async () => Promise.reject(apiError(401))) } });
    await t.start();
    await t.clock.advance(500);
    t.otherTab.set(
      'grv_teleport_token',
      JSON.stringify({
        accessToken: 'tok-fresh-page',
        expiresIn: 600,
        created: t.clock.now(),
        sessionExpires: '',
        sessionInactiveTimeout: 0,
      }),
    );
    await t.clock.advance(500);
    expect(t.navigate).not.toHaveBeenCalled();
    expect(t.session.token()?.accessToken).toBe('tok-fresh-page');
  });

  it('a network error or a 500 from the status poll does not log out', async () => {
    const status = vi
      .fn<() => Promise<undefined>>()
      .mockRejectedValueOnce(new Error('Network request failed'))
      .mockRejectedValueOnce(apiError(500));
    const t = setup({ api: { status } });
    await t.start();
    await t.clock.advance(15 * s);
    expect(status).toHaveBeenCalledTimes(2);
    expect(t.navigate).not.toHaveBeenCalled();
  });

  it('a renewal failing on the network or a busy server keeps the session, and tries again', async () => {
    const renew = vi
      .fn<() => Promise<ReturnType<typeof renewResponse>>>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockRejectedValueOnce(apiError(503))
      .mockResolvedValue(renewResponse('tok-after-the-blip'));
    const t = setup({ token: { expiresIn: 100 }, api: { renew } });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await t.start();
    expect(renew).toHaveBeenCalledTimes(1);
    await t.clock.advance(sessionTiming.checkIntervalMs);
    expect(renew).toHaveBeenCalledTimes(2);
    expect(t.navigate).not.toHaveBeenCalled();
    await t.clock.advance(sessionTiming.checkIntervalMs);
    expect(renew).toHaveBeenCalledTimes(3);
    expect(t.session.token()?.accessToken).toBe('tok-after-the-blip');
    expect(t.navigate).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('a renewal still failing when the token runs out logs out then', async () => {
    const renew = vi.fn(async () => Promise.reject(new TypeError('Failed to fetch')));
    const t = setup({ token: { expiresIn: 20 }, api: { renew } });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await t.start();
    await t.clock.advance(sessionTiming.checkIntervalMs);
    expect(renew).toHaveBeenCalledTimes(2);
    expect(t.navigate).not.toHaveBeenCalled();
    await t.clock.advance(sessionTiming.checkIntervalMs);
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
    vi.restoreAllMocks();
  });

  it('a refused renewal logs out', async () => {
    const t = setup({
      token: { expiresIn: 100 },
      api: { renew: vi.fn(async () => Promise.reject(apiError(403))) },
    });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await t.start();
    await t.clock.advance(1 * s);
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
    expect(readStoredToken(t.storage)).toBeNull();
    vi.restoreAllMocks();
  });

  it('a failed renewal does not log out when another tab stored a fresh token meanwhile', async () => {
    const tab: { current?: ReturnType<typeof setup> } = {};
    const renew = vi.fn(async () => {
      const t = tab.current;
      t?.otherTab.set(
        'grv_teleport_token',
        JSON.stringify({
          accessToken: 'tok-other-tab',
          expiresIn: 600,
          created: t.clock.now(),
          sessionExpires: '',
          sessionInactiveTimeout: 0,
        }),
      );
      throw apiError(401);
    });
    const t = (tab.current = setup({ token: { expiresIn: 100 }, api: { renew } }));
    await t.start();
    expect(renew).toHaveBeenCalledTimes(1);
    expect(t.navigate).not.toHaveBeenCalled();
    expect(t.session.token()?.accessToken).toBe('tok-other-tab');
  });

  it('logs out when the token has run out (for example after the computer slept)', async () => {
    const t = setup({ token: { expiresIn: 600 } });
    await t.start();
    t.doc.visibilityState = 'hidden';
    // Timers did not run while asleep.
    t.clock.jump(700 * s);
    t.doc.visibilityState = 'visible';
    t.doc.dispatchEvent(new Event('visibilitychange'));
    await flushPromises();
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
  });
});

describe('inactivity', () => {
  const idle = { sessionInactiveTimeout: 120 * s };

  it('records the start as activity and logs out once idle longer than the timeout minus 30 s', async () => {
    const t = setup({ token: idle });
    await t.start();
    expect(t.storage.getItem('grv_teleport_last_active')).toBe(String(t.clock.now()));
    await t.clock.advance(90 * s); // idle exactly 90 s: not over
    expect(t.navigate).not.toHaveBeenCalled();
    await t.clock.advance(30 * s); // idle 120 s > 90 s
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
    expect(t.api.deleteSession).toHaveBeenCalled();
  });

  it('activity (key press, pointer move, pointer down) keeps the session, throttled to 15 s', async () => {
    const t = setup({ token: idle });
    await t.start();
    const started = t.clock.now();
    await t.clock.advance(60 * s);
    t.win.dispatchEvent(new Event('pointermove'));
    expect(t.storage.getItem('grv_teleport_last_active')).toBe(String(started + 60 * s));
    await t.clock.advance(10 * s);
    t.win.dispatchEvent(new Event('keydown'));
    expect(t.storage.getItem('grv_teleport_last_active')).toBe(String(started + 60 * s));
    await t.clock.advance(5 * s);
    t.win.dispatchEvent(new Event('pointerdown'));
    expect(t.storage.getItem('grv_teleport_last_active')).toBe(String(started + 75 * s));
    await t.clock.advance(90 * s); // idle 90 s since 75 s
    expect(t.navigate).not.toHaveBeenCalled();
    await t.clock.advance(30 * s);
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
  });

  it('checks at start: a tab reopened after being idle logs out at once', async () => {
    const clockStart = 1_700_000_000_000;
    const t = setup({ token: idle, lastActive: clockStart - 100 * s });
    await t.start();
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
  });

  it('activity in another tab counts (the timestamp is shared)', async () => {
    const t = setup({ token: idle });
    await t.start();
    await t.clock.advance(80 * s);
    t.storage.setItem('grv_teleport_last_active', String(t.clock.now()));
    await t.clock.advance(80 * s);
    expect(t.navigate).not.toHaveBeenCalled();
  });

  it('with no inactivity timeout, never logs out for idleness', async () => {
    const t = setup({ lastActive: 1 });
    await t.start();
    await t.clock.advance(3600 * s);
    expect(t.navigate).not.toHaveBeenCalled();
    t.win.dispatchEvent(new Event('keydown'));
    expect(t.storage.getItem('grv_teleport_last_active')).toBe('1');
  });
});

describe('logout', () => {
  it('deletes the web session, clears storage but the theme and assist keys, stops, goes to login', async () => {
    const t = setup({ token: { sessionInactiveTimeout: 60 * s } });
    t.storage.setItem('grv_teleport_ui_theme', 'dark');
    t.storage.setItem('grv_teleport_show_assist_popup', 'false');
    t.storage.setItem('grv_teleport_assist_view_mode', 'docked');
    t.storage.setItem('grv_teleport_discover', '{}');
    t.storage.setItem('something-else', '1');
    await t.start();
    const polls = t.api.status.mock.calls.length;

    await t.session.logout();
    expect(t.api.deleteSession).toHaveBeenCalledTimes(1);
    expect(t.navigate).toHaveBeenCalledWith('/web/login');
    expect(t.storage.keys().sort()).toEqual([
      'grv_teleport_assist_view_mode',
      'grv_teleport_show_assist_popup',
      'grv_teleport_ui_theme',
    ]);
    expect(t.storage.getItem('grv_teleport_ui_theme')).toBe('dark');
    expect(t.session.token()).toBeNull();

    // The checker is stopped: no more polls, no second logout, and no 401 handler left.
    await t.clock.advance(600 * s);
    expect(t.api.status).toHaveBeenCalledTimes(polls);
    expect(t.navigate).toHaveBeenCalledTimes(1);
    expect(t.unauthorized()).toBeUndefined();
  });

  it('removes the token first, which is what other tabs listen for', async () => {
    const t = setup();
    t.storage.setItem('grv_teleport_discover', '{}');
    await t.start();
    await t.session.logout();
    const removals = t.storage.writes.filter(([op]) => op === 'remove').map(([, key]) => key);
    expect(removals[0]).toBe('grv_teleport_token');
  });

  it('leaves after 5 s when the server does not answer the DELETE', async () => {
    const t = setup({ api: { deleteSession: () => new Promise<undefined>(() => undefined) } });
    await t.start();
    void t.session.logout();
    await flushPromises();
    expect(t.navigate).not.toHaveBeenCalled();
    await t.clock.advance(5 * s);
    expect(t.navigate).toHaveBeenCalledWith('/web/login');
  });

  it('still goes to login when the DELETE fails', async () => {
    const t = setup({ api: { deleteSession: vi.fn(async () => Promise.reject(apiError(401))) } });
    await t.start();
    await t.session.logout();
    expect(t.navigate).toHaveBeenCalledWith('/web/login');
  });
});

describe('401 from any API call', () => {
  it('hands back a newer token when the call raced a renewal (for one more try)', async () => {
    const t = setup();
    await t.start();
    const answer = t.unauthorized()?.(apiError(401), 'tok-1');
    await flushPromises();
    // This tab's (or another tab's) renewal stores the new token a moment later.
    t.storage.setItem(
      'grv_teleport_token',
      JSON.stringify({
        accessToken: 'tok-2',
        expiresIn: 600,
        created: t.clock.now(),
        sessionExpires: '',
        sessionInactiveTimeout: 0,
      }),
    );
    await t.clock.advance(1 * s);
    await expect(answer).resolves.toBe('tok-2');
    expect(t.api.status).toHaveBeenCalledTimes(1); // only the one at start
    expect(t.navigate).not.toHaveBeenCalled();
  });

  it('otherwise is confirmed with a status poll, which logs out when the session is gone', async () => {
    const status = vi.fn<() => Promise<undefined>>().mockResolvedValueOnce(undefined);
    const t = setup({ api: { status } });
    await t.start();
    status.mockRejectedValueOnce(apiError(401));
    const answer = t.unauthorized()?.(apiError(401), 'tok-1');
    await t.clock.advance(1 * s);
    await expect(answer).resolves.toBeUndefined();
    await t.clock.advance(1 * s);
    expect(t.navigate).toHaveBeenCalledWith(loginAgain);
  });

  it('does not log out when the status poll says the session is fine', async () => {
    const t = setup();
    await t.start();
    void t.unauthorized()?.(apiError(401), 'tok-1');
    await t.clock.advance(1 * s);
    expect(t.api.status).toHaveBeenCalledTimes(2);
    expect(t.navigate).not.toHaveBeenCalled();
  });
});
