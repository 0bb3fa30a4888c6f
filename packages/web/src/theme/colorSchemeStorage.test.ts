import { describe, expect, it, vi } from 'vitest';
import { applyStoredColorScheme, colorSchemeBootScript } from './applyColorScheme';
import { createColorSchemeStorage } from './colorSchemeStorage';

const key = 'grv_teleport_ui_theme';

/** What another tab's write looks like to this one. */
function otherTabWrites(value: string | null, storageKey: string | null = key) {
  if (storageKey === key) {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  }
  window.dispatchEvent(new StorageEvent('storage', { key: storageKey, newValue: value }));
}

describe('colour scheme storage', () => {
  it('defaults to light and keeps light or dark under grv_teleport_ui_theme', () => {
    const manager = createColorSchemeStorage();
    expect(manager.get('light')).toBe('light');
    manager.set('dark');
    expect(localStorage.getItem(key)).toBe('dark');
    expect(manager.get('light')).toBe('dark');
    manager.set('light');
    expect(localStorage.getItem(key)).toBe('light');
  });

  it('ignores values it does not know, and never stores auto', () => {
    const manager = createColorSchemeStorage();
    localStorage.setItem(key, 'purple');
    expect(manager.get('light')).toBe('light');
    expect(manager.get('auto')).toBe('light');
    manager.set('auto');
    expect(localStorage.getItem(key)).toBe('light');
  });

  it('follows changes made in other tabs until unsubscribed', () => {
    const manager = createColorSchemeStorage();
    const onUpdate = vi.fn();
    manager.subscribe(onUpdate);

    otherTabWrites('dark');
    otherTabWrites('light');
    otherTabWrites('x', 'some_other_key');
    otherTabWrites(null); // removed: back to the default
    expect(onUpdate.mock.calls).toEqual([['dark'], ['light'], ['light']]);

    manager.unsubscribe();
    otherTabWrites('dark');
    expect(onUpdate).toHaveBeenCalledTimes(3);
  });

  it('clear removes the stored value', () => {
    const manager = createColorSchemeStorage();
    manager.set('dark');
    manager.clear();
    expect(localStorage.getItem(key)).toBeNull();
  });
});

describe('before first paint', () => {
  it('applies the stored scheme to <html>', () => {
    localStorage.setItem(key, 'dark');
    expect(applyStoredColorScheme(key)).toBe('dark');
    expect(document.documentElement.getAttribute('data-mantine-color-scheme')).toBe('dark');
    localStorage.setItem(key, 'bogus');
    expect(applyStoredColorScheme(key)).toBe('light');
    expect(document.documentElement.style.colorScheme).toBe('light');
  });

  it('the serialised boot script runs on its own (it is shipped as a standalone file)', () => {
    localStorage.setItem(key, 'dark');
    document.documentElement.removeAttribute('data-mantine-color-scheme');
    new Function(colorSchemeBootScript(key))();
    expect(document.documentElement.getAttribute('data-mantine-color-scheme')).toBe('dark');
  });
});
