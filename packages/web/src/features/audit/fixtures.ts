import type { AuditEventJson } from '@postern/contracts';

const base = Date.parse('2026-11-20T10:00:00Z');

/** `count` events, newest first as the server sends them: logins, a session, a failed login. */
export function auditEventFixtures(count: number, startAt = 0): AuditEventJson[] {
  return Array.from({ length: count }, (_, i) => {
    const n = startAt + i;
    const time = new Date(base - n * 60_000).toISOString();
    if (n % 3 === 0)
      return {
        event: 'session.start',
        code: 'T2000I',
        time,
        uid: `u${n}`,
        user: 'alice',
        sid: `s${n}`,
      };
    if (n % 3 === 1)
      return {
        event: 'user.login',
        code: 'T1000I',
        time,
        uid: `u${n}`,
        user: 'bob',
        method: 'local',
      };
    return {
      event: 'user.login',
      code: 'T1000W',
      time,
      uid: `u${n}`,
      user: 'eve',
      error: 'bad password',
    };
  });
}
