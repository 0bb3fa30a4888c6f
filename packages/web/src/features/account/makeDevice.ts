import type { MfaDevice } from '@postern/contracts';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import type { MfaMethod } from '../../lib/secondFactor';

/** Spec §3 second-factor device, as the devices table shows it. */
export interface Device {
  id: string;
  name: string;
  description: 'Authenticator App' | 'Hardware Key' | 'unknown device';
  type: MfaDevice['type'];
  /** Passkeys sign in on their own (passwordless); other devices are second factors. */
  passkey: boolean;
  registeredDate: string;
  lastUsedDate: string;
  addedAt: number;
}

function description(type: string): Device['description'] {
  if (type === 'TOTP') return 'Authenticator App';
  if (type === 'WebAuthn') return 'Hardware Key';
  return 'unknown device';
}

const dateText = (value: string) => {
  const date = parseTimestamp(value);
  return date ? formatDateTime(date) : '';
};

export function makeDevice(json: MfaDevice): Device {
  return {
    id: json.id,
    name: json.name,
    description: description(json.type),
    type: json.type,
    passkey: json.usage === 'passwordless',
    registeredDate: dateText(json.addedAt),
    lastUsedDate: dateText(json.lastUsed),
    addedAt: parseTimestamp(json.addedAt)?.getTime() ?? 0,
  };
}

/** Oldest first, as they were registered. */
export function makeDevices(list: MfaDevice[]): Device[] {
  return list.map(makeDevice).sort((a, b) => a.addedAt - b.addedAt || a.name.localeCompare(b.name));
}

/** Which second factors the user can answer with, from the devices they have. */
export function answerMethods(devices: Device[]): MfaMethod[] {
  const methods: MfaMethod[] = [];
  if (devices.some((d) => d.type === 'TOTP')) methods.push('otp');
  if (devices.some((d) => d.type === 'WebAuthn')) methods.push('webauthn');
  return methods.length > 0 ? methods : ['none'];
}
