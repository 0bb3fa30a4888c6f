import type { MfaDevice } from '@postern/contracts';

/** `GET mfa/devices` as the server sends it: an app, a key, and a passkey never used. */
export const mfaDeviceFixtures: MfaDevice[] = [
  {
    id: 'd2',
    name: 'yubikey',
    type: 'WebAuthn',
    usage: 'mfa',
    addedAt: '2024-03-02T08:00:00Z',
    lastUsed: '2024-03-05T09:10:11Z',
  },
  {
    id: 'd1',
    name: 'phone',
    type: 'TOTP',
    usage: 'mfa',
    addedAt: '2024-03-01T10:20:30Z',
    lastUsed: '2024-03-04T12:00:00Z',
  },
  {
    id: 'd3',
    name: 'laptop',
    type: 'WebAuthn',
    usage: 'passwordless',
    addedAt: '2024-03-03T00:00:00Z',
    lastUsed: '0001-01-01T00:00:00Z',
  },
];
