import { useState } from 'react';
import type { Device } from '../account/makeDevice';
import { useUserDevices } from '../users/useUsers';
import type { DeviceOwnerField } from './NewLockView';

/**
 * The device picker's owner and their devices, where the viewer may read users. A name is looked
 * up once it is one of the listed users (or as typed, where users cannot be listed).
 */
export function useDeviceOwner(
  mayRead: boolean,
  known: string[] | undefined,
): DeviceOwnerField | undefined {
  const [owner, setOwner] = useState('');
  const name = owner.trim();
  const devices = useUserDevices(name, mayRead && (known === undefined || known.includes(name)));
  if (!mayRead) return undefined;
  const listed = devices.data ?? [];
  return {
    value: owner,
    onChange: setOwner,
    devices: listed.map((device) => ({ id: device.id, label: deviceLabel(device) })),
    error: devices.error
      ? devices.error.message
      : devices.data && listed.length === 0
        ? `${name} has no MFA devices`
        : undefined,
  };
}

/** "phone · Authenticator App · last used 3/1/2026, 12:00" */
function deviceLabel(device: Device): string {
  const used = device.lastUsedDate ? `last used ${device.lastUsedDate}` : 'never used';
  return [device.name, device.passkey ? 'Passkey' : device.description, used].join(' · ');
}
