import { describe, expect, it } from 'vitest';
import { isNormalSessionEnd, sessionEndReasons } from './end-reason.js';

describe('isNormalSessionEnd', () => {
  it('an exit with status 0, or everyone leaving, is a normal end', () => {
    expect(isNormalSessionEnd(sessionEndReasons.exited(0))).toBe(true);
    expect(isNormalSessionEnd('exited with code 0')).toBe(true);
    expect(isNormalSessionEnd(sessionEndReasons.allLeft)).toBe(true);
  });

  it('a non-zero exit, a signal or any failure is not', () => {
    for (const reason of [
      sessionEndReasons.exited(1),
      sessionEndReasons.exited(130),
      sessionEndReasons.exited('unknown'),
      sessionEndReasons.signalled('KILL'),
      'locked: suspicious activity',
      'session expired (max_session_ttl)',
      'connection to the server closed',
    ]) {
      expect(isNormalSessionEnd(reason), reason).toBe(false);
    }
  });
});
