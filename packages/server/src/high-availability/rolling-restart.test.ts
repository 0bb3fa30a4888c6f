import { apiPaths, type SessionResponse } from '@postern/contracts';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCookieName } from '../http/request-identity.js';
import { newDevice } from '../identity/mfa/devices.js';
import { newTotpSecret } from '../identity/mfa/totp.js';
import { PasswordHasher } from '../identity/users/passwords.js';
import { UsersStore } from '../identity/users/users.store.js';
import { csrfCookieName, csrfHeaderName } from '../plugins/csrf.js';
import { haClusterName, startHaCluster, type HaCluster } from '../testing/ha-cluster.testkit.js';
import { sleep } from '../testing/ha-process.testkit.js';
import {
  haproxyCheckIntervalMs,
  haproxyFall,
  startHaproxy,
  type RunningHaproxy,
} from '../testing/haproxy.testkit.js';
import { totpCode } from '../testing/totp.testkit.js';

// A rolling restart behind a real load balancer (docs/high-availability.md): three `postern
// start` processes on one PostgreSQL schema behind HAProxy, which checks each one's /readyz.
// Users sign in through HAProxy all along, a fresh sign-in every 200 ms, while each proxy in turn
// gets SIGTERM, drains (readyz 503 at once: HAProxy stops sending it requests within a second),
// exits, and is started again. Not one sign-in may fail, and a session signed in before the
// restarts must still work after them through every proxy (web sessions live in PostgreSQL).
//
// Every sign-in is the console's: `POST sessions/web` with the password and an authenticator
// code, then the user context with the new session. A TOTP code works once per user and 30 s
// step (a second sign-in in the same step is refused as a replay, rightly), so the sign-ins take
// turns among enough users for one each per step: 150 sign-ins fit in a step at 5 per second.
// (Password-only sign-in, `second_factor: off`, would have needed one user, but would not be
// the sign-in people use.) All users sign in from HAProxy's address, so the per-address sign-in
// rate limit (30 a minute per proxy by default) is raised: it is not what this test is about.

const signInEveryMs = 200;
const users = 160;
const password = 'rolling restart, not one failed sign-in';
/** More than HAProxy needs to take a draining proxy out: 2 failed checks 500 ms apart. */
const drainMs = 2000;

const stepOf = (ms: number) => Math.floor(ms / 1000 / 30);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

interface PoolUser {
  name: string;
  secret: string;
  /** The TOTP step of its last sign-in: one sign-in per step. */
  lastStep: number;
  busy: boolean;
}

interface SignedIn {
  cookie: string;
  authorization: string;
}

interface Outcome {
  user: string;
  at: number;
  ok: boolean;
  error?: string;
}

let cluster: HaCluster;
let haproxy: RunningHaproxy;
const pool: PoolUser[] = [];
/** The browser's double-submit CSRF token (the console gets its cookie with the page). */
const csrf = randomBytes(32).toString('hex');

beforeAll(async () => {
  expect(drainMs).toBeGreaterThanOrEqual(haproxyCheckIntervalMs * haproxyFall);
  cluster = await startHaCluster({
    proxies: 3,
    extraConfig: {
      shutdown_drain: `${drainMs}ms`,
      auth: { login_rate_limit: 100_000 },
    },
  });
  haproxy = await startHaproxy({
    backends: cluster.proxies.map((proxy) => {
      const url = new URL(proxy.webUrl);
      return { host: url.hostname, port: Number(url.port) };
    }),
  });
  await haproxy.allUp();
  await cluster.addRole('signin');
  // Users as an invite leaves them: a password and an authenticator app. One argon2 hash for
  // all (each verify still costs a sign-in its full argon2 run).
  const hash = await new PasswordHasher().hash(password);
  await cluster.withBackend(async (backend) => {
    const store = new UsersStore(backend);
    for (let i = 0; i < users; i++) {
      const name = `user-${i}`;
      const secret = newTotpSecret();
      await store.create({
        kind: 'user',
        version: 'v2',
        metadata: { name },
        spec: { roles: ['signin'], traits: { logins: [] }, authType: 'local', createdAt: '' },
        status: {},
      });
      await store.mutateCredentials(name, () => ({
        credentials: {
          passwordHash: hash,
          devices: [
            newDevice({ name: 'phone', now: Date.now(), usage: 'mfa', totp: { secret, step: 0 } }),
          ],
        },
        result: undefined,
      }));
      pool.push({ name, secret, lastStep: -1, busy: false });
    }
  });
}, 90_000);

afterAll(async () => {
  await haproxy?.stop();
  await cluster?.close();
});

/** A user who has not signed in in this TOTP step and is not signing in now. */
function nextUser(): PoolUser | undefined {
  const step = stepOf(Date.now());
  const user = pool.find((each) => !each.busy && each.lastStep < step);
  if (user) {
    user.busy = true;
    user.lastStep = step;
  }
  return user;
}

/** The console's sign-in through HAProxy, then its first call with the new session. */
async function signIn(user: PoolUser): Promise<SignedIn> {
  const answer = await fetch(`${haproxy.url}${apiPaths.webSession}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: `${csrfCookieName}=${csrf}`,
      [csrfHeaderName]: csrf,
      origin: haproxy.url,
    },
    body: JSON.stringify({
      user: user.name,
      pass: b64(password),
      second_factor_token: totpCode(user.secret, Date.now()),
    }),
    signal: AbortSignal.timeout(10_000),
  });
  if (answer.status !== 200) throw new Error(`sign-in: ${answer.status} ${await answer.text()}`);
  const { token } = (await answer.json()) as SessionResponse;
  const cookie = answer.headers
    .getSetCookie()
    .map((each) => each.split(';')[0]!)
    .find((each) => each.startsWith(`${sessionCookieName}=`));
  if (!cookie) throw new Error('sign-in: no session cookie');
  const session = { cookie, authorization: `Bearer ${token}` };
  const context = await userContext(haproxy.url, session);
  if (context !== 200) throw new Error(`the user context after sign-in: ${context}`);
  return session;
}

/** `GET sites/:cluster/context` (what the console loads first) with `session`: its status. */
async function userContext(baseUrl: string, session: SignedIn): Promise<number> {
  const answer = await fetch(`${baseUrl}${apiPaths.context(haClusterName)}`, {
    headers: { ...session },
    signal: AbortSignal.timeout(10_000),
  });
  await answer.arrayBuffer();
  return answer.status;
}

/** Starts a sign-in every 200 ms until stopped; resolves with every outcome. */
function signInLoop() {
  const outcomes: Outcome[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let starved = 0;
  const done = (async () => {
    while (!stopped) {
      const user = nextUser();
      if (user) {
        const at = Date.now();
        const attempt = signIn(user).then(
          () => void outcomes.push({ user: user.name, at, ok: true }),
          (error: unknown) =>
            void outcomes.push({ user: user.name, at, ok: false, error: String(error) }),
        );
        const tracked = attempt.finally(() => {
          user.busy = false;
          inFlight.delete(tracked);
        });
        inFlight.add(tracked);
      } else {
        starved += 1;
      }
      await sleep(signInEveryMs);
    }
    await Promise.all(inFlight);
  })();
  return {
    outcomes,
    /** Sign-ins that finished (either way) since `since` (epoch ms). */
    finishedSince: (since: number) => outcomes.filter((outcome) => outcome.at >= since).length,
    async stop() {
      stopped = true;
      await done;
      return { outcomes, starved };
    },
  };
}

describe('a rolling restart behind HAProxy', () => {
  it('signs users in all along, restarts every proxy, and keeps the sessions', async () => {
    const before = await signIn(nextUser()!);
    const loop = signInLoop();
    const restarts: { index: number; before: number; after: number; signIns: number }[] = [];
    let signIns: Awaited<ReturnType<typeof loop.stop>>;
    try {
      await sleep(1000);
      for (const proxy of cluster.proxies) {
        const pid = proxy.pid!;
        const from = Date.now();
        const logged = proxy.logs().length;
        // SIGTERM: it drains (readyz 503, HAProxy takes it out), then stops within its grace.
        await proxy.kill('SIGTERM');
        const stopLogs = proxy.logs().slice(logged);
        expect(stopLogs).toContain('"draining":true');
        expect(stopLogs).toMatch(/"msg":"stopped"/);
        expect(stopLogs).not.toContain('shutdown_grace ran out');
        await proxy.restart();
        await proxy.ready();
        await haproxy.allUp();
        // A moment on the restarted proxy before the next one goes.
        await sleep(1000);
        restarts.push({
          index: proxy.index,
          before: pid,
          after: proxy.pid!,
          signIns: loop.finishedSince(from),
        });
      }
    } finally {
      signIns = await loop.stop();
    }
    const failed = signIns.outcomes.filter((outcome) => !outcome.ok);
    if (failed.length > 0) {
      console.error(`${failed.length} failed sign-ins:`, failed, `\n${haproxy.output()}`);
      console.error(cluster.logs());
    }
    expect(failed).toEqual([]);
    // Never short of a user whose code was not used yet in this step: no sign-in was skipped.
    expect(signIns.starved).toBe(0);

    // Each proxy was stopped and started again: a new process each time.
    expect(restarts.map((restart) => restart.index)).toEqual([0, 1, 2]);
    for (const restart of restarts) {
      expect(restart.after).not.toBe(restart.before);
      // Sign-ins went on while it drained, stopped and started (about 5 a second).
      expect(restart.signIns).toBeGreaterThan(5);
    }
    // HAProxy took each proxy out because its readyz said 503 (the drain), not because it had
    // stopped listening ("Layer4 connection problem"): so no request was sent to a proxy that
    // was going away, and none needed HAProxy's retry on another (the retries field, last of
    // the five connection counts, is 0 on every request; "+1" would be a redispatch).
    const log = haproxy.output();
    for (const proxy of cluster.proxies) {
      expect(log).toMatch(
        new RegExp(
          `Server postern/p${proxy.index} is DOWN, reason: Layer7 wrong status, code: 503`,
        ),
      );
    }
    const requests = log.split('\n').filter((line) => / postern_in postern\/p\d /.test(line));
    // (At least 15 sign-ins of two requests each: the log was read.)
    expect(requests.length).toBeGreaterThanOrEqual(30);
    // httplog: … status bytes - - termination-state actconn/feconn/beconn/srvconn/retries …
    const retries = (line: string) => / [-\w]{4} \d+\/\d+\/\d+\/\d+\/(\+?\d+) /.exec(line)?.[1];
    const retried = requests.filter((line) => retries(line) !== '0');
    expect(retried).toEqual([]);
    // And it sent sign-ins to every proxy.
    for (const proxy of cluster.proxies) {
      expect(log).toMatch(
        new RegExp(`postern/p${proxy.index} .* 200 .*"POST ${apiPaths.webSession} `),
      );
    }

    // The session from before every restart works through HAProxy and through each proxy.
    expect(await userContext(haproxy.url, before)).toBe(200);
    for (const proxy of cluster.proxies) {
      expect(await userContext(proxy.webUrl, before)).toBe(200);
    }
  }, 180_000);
});
