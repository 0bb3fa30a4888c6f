import { describe, expect, it } from 'vitest';
import { defaultMfaMethod, mfaMethodsFor } from './secondFactor';

describe('second factor options', () => {
  it.each([
    ['off', ['none']],
    ['otp', ['otp']],
    ['webauthn', ['webauthn']],
    ['on', ['otp', 'webauthn']],
    ['optional', ['otp', 'webauthn', 'none']],
  ] as const)('%s offers %j', (setting, methods) => {
    expect(mfaMethodsFor(setting)).toEqual(methods);
  });

  it('defaults to the preferred method when offered', () => {
    expect(defaultMfaMethod(['otp', 'webauthn'], 'webauthn')).toBe('webauthn');
    expect(defaultMfaMethod(['otp', 'webauthn'], '')).toBe('otp');
    expect(defaultMfaMethod(['otp'], 'webauthn')).toBe('otp');
  });
});
