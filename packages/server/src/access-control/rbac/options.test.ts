import { describe, expect, it } from 'vitest';
import { mergeOptions } from './options.js';

// The role option `lock` over several roles: strict wins, an explicit best_effort is kept, and
// roles that do not say leave it to the cluster's auth.locking_mode (platform.ts).
describe('the locking mode of a set of roles', () => {
  it('is strict if any role says so, best_effort if one says that, else the cluster’s', () => {
    expect(mergeOptions([{ lock: 'best_effort' }, { lock: 'strict' }]).lockingMode).toBe('strict');
    expect(mergeOptions([{}, { lock: 'best_effort' }]).lockingMode).toBe('best_effort');
    expect(mergeOptions([{}, {}]).lockingMode).toBeUndefined();
    expect(mergeOptions([]).lockingMode).toBeUndefined();
  });
});
