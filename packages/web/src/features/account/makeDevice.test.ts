import { describe, expect, it } from 'vitest';
import { mfaDeviceFixtures } from './fixtures';
import { answerMethods, makeDevice, makeDevices } from './makeDevice';

describe('makeDevices', () => {
  it('maps the wire rows to spec §3 devices, oldest first, dates as YYYY-MM-DD HH:mm:ss', () => {
    expect(makeDevices(mfaDeviceFixtures)).toEqual([
      expect.objectContaining({
        id: 'd1',
        name: 'phone',
        description: 'Authenticator App',
        registeredDate: '2024-03-01 10:20:30',
        lastUsedDate: '2024-03-04 12:00:00',
        passkey: false,
      }),
      expect.objectContaining({ name: 'yubikey', description: 'Hardware Key', passkey: false }),
      expect.objectContaining({
        name: 'laptop',
        description: 'Hardware Key',
        passkey: true,
        lastUsedDate: '',
      }),
    ]);
  });

  it("calls anything else an 'unknown device'", () => {
    const u2f = { ...mfaDeviceFixtures[0]!, type: 'U2F' as never };
    expect(makeDevice(u2f).description).toBe('unknown device');
  });

  it('answer methods follow the devices the user has', () => {
    const devices = makeDevices(mfaDeviceFixtures);
    expect(answerMethods(devices)).toEqual(['otp', 'webauthn']);
    expect(answerMethods(devices.filter((d) => d.type === 'TOTP'))).toEqual(['otp']);
    expect(answerMethods(devices.filter((d) => d.type === 'WebAuthn'))).toEqual(['webauthn']);
    expect(answerMethods([])).toEqual(['none']);
  });
});
