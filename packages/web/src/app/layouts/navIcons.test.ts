import { describe, expect, it } from 'vitest';
import { features } from '../features';
import { navIcons } from './navIcons';

describe('navigation icons', () => {
  it('every item of the side nav and the user menu has its own icon', () => {
    const listed = features.filter((f) => f.placement.nav !== 'none');
    const missing = listed.filter((f) => !navIcons[f.id]).map((f) => f.id);
    expect(missing).toEqual([]);
    const icons = listed.map((f) => navIcons[f.id]);
    expect(new Set(icons).size).toBe(icons.length);
  });
});
