import { describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../../test/memoryStorage';
import { clampFontSize, fontSizeStorageKey, readFontSize } from './fontSize';
import { shortcutOf } from './terminalEngine';
import { openLink, safeLinkTarget } from './xterm/links';
import { chooseRenderer, isSoftwareRenderer } from './xterm/renderer';

const key = (over: Partial<Parameters<typeof shortcutOf>[0]>) => ({
  key: 'c',
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...over,
});

describe('terminal shortcuts', () => {
  it('Ctrl or Cmd with Shift and C, V or F; plain Ctrl+C stays with the program', () => {
    expect(shortcutOf(key({ key: 'C', ctrlKey: true, shiftKey: true }))).toBe('copy');
    expect(shortcutOf(key({ key: 'V', metaKey: true, shiftKey: true }))).toBe('paste');
    expect(shortcutOf(key({ key: 'F', ctrlKey: true, shiftKey: true }))).toBe('find');
    // The physical key counts on other layouts.
    expect(shortcutOf(key({ key: 'Ç', code: 'KeyC', ctrlKey: true, shiftKey: true }))).toBe('copy');
    expect(shortcutOf(key({ key: 'c', ctrlKey: true }))).toBeUndefined();
    expect(shortcutOf(key({ key: 'v', ctrlKey: true }))).toBeUndefined();
    expect(
      shortcutOf(key({ key: 'C', ctrlKey: true, shiftKey: true, altKey: true })),
    ).toBeUndefined();
    expect(shortcutOf(key({ key: 'X', ctrlKey: true, shiftKey: true }))).toBeUndefined();
  });
});

describe('links in terminal output', () => {
  it('opens only http(s), without access to this page', () => {
    expect(safeLinkTarget('https://example.com/a?b')).toBe('https://example.com/a?b');
    expect(safeLinkTarget('http://example.com')).toBe('http://example.com/');
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'vbscript:x',
      'not a url',
    ]) {
      expect(safeLinkTarget(bad)).toBeUndefined();
    }
    const open = vi.fn();
    openLink('javascript:alert(1)', open);
    expect(open).not.toHaveBeenCalled();
    openLink('https://example.com', open);
    expect(open).toHaveBeenCalledWith('https://example.com/', '_blank', 'noopener,noreferrer');
  });
});

describe('renderer choice', () => {
  const docWith = (gl: unknown) => ({ createElement: () => ({ getContext: () => gl }) });
  const gl = (renderer: string, withInfo = true) => ({
    RENDERER: 0x1f01,
    getExtension: (name: string) =>
      name === 'WEBGL_debug_renderer_info' && withInfo ? { UNMASKED_RENDERER_WEBGL: 0x9246 } : null,
    getParameter: (p: number) => (p === 0x9246 || p === 0x1f01 ? renderer : null),
  });

  it('uses WebGL only with WebGL2 on a hardware renderer', () => {
    expect(chooseRenderer(docWith(gl('ANGLE (NVIDIA GeForce RTX 3060 Direct3D11)')))).toBe('webgl');
    expect(chooseRenderer(docWith(null))).toBe('dom');
    expect(
      chooseRenderer(docWith(gl('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)))'))),
    ).toBe('dom');
    expect(chooseRenderer(docWith(gl('llvmpipe (LLVM 15.0.6, 256 bits)')))).toBe('dom');
    expect(chooseRenderer(docWith(gl('Microsoft Basic Render Driver')))).toBe('dom');
    expect(
      chooseRenderer({
        createElement: () => ({
          getContext: () => {
            throw new Error('blocked');
          },
        }),
      }),
    ).toBe('dom');
  });

  it('knows software renderers by name', () => {
    expect(isSoftwareRenderer('Software Rasterizer')).toBe(true);
    expect(isSoftwareRenderer('Apple M2')).toBe(false);
  });
});

describe('font size setting', () => {
  it('reads the stored size, clamped, with 14 by default', () => {
    const storage = new MemoryStorage();
    expect(readFontSize(storage)).toBe(14);
    storage.setItem(fontSizeStorageKey, '18');
    expect(readFontSize(storage)).toBe(18);
    storage.setItem(fontSizeStorageKey, '200');
    expect(readFontSize(storage)).toBe(32);
    storage.setItem(fontSizeStorageKey, 'big');
    expect(readFontSize(storage)).toBe(14);
    expect(clampFontSize(2)).toBe(8);
    expect(fontSizeStorageKey.startsWith('grv_teleport_')).toBe(true);
  });
});
