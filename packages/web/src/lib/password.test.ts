import { describe, expect, it } from 'vitest';
import { encodePassword } from './password';

describe('encodePassword (spec §5)', () => {
  it('is base64 of the UTF-8 bytes', () => {
    expect(encodePassword('correct horse battery')).toBe(btoa('correct horse battery'));
    // 'é' is two bytes in UTF-8; plain btoa would throw on '€' and mangle 'é'.
    expect(encodePassword('pässwörd€')).toBe('cMOkc3N3w7ZyZOKCrA==');
    expect(atob(encodePassword('ключ'))).toBe(
      String.fromCharCode(...new TextEncoder().encode('ключ')),
    );
    expect(encodePassword('')).toBe('');
  });
});
