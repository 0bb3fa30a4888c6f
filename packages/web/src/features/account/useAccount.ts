import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import {
  addMfaDevice,
  changePassword,
  createPrivilegeToken,
  fetchMfaDevices,
  fetchTotpChallenge,
  removeMfaDevice,
  type ChangePassword,
  type NewDevice,
  type SecondFactorAnswer,
} from './accountApi';
import { makeDevices } from './makeDevice';

export const mfaDevicesQueryKey = ['mfaDevices'] as const;

/** `GET mfa/devices`, as table rows. */
export function useMfaDevices() {
  return useQuery({
    queryKey: mfaDevicesQueryKey,
    queryFn: async ({ signal }) => makeDevices(await fetchMfaDevices(signal)),
  });
}

export function useChangePassword() {
  return useMutation({ mutationFn: (request: ChangePassword) => changePassword(request) });
}

/** What the add and remove dialogs do; the device list reloads after each change. */
export interface DeviceActions {
  reauthenticate(answer: SecondFactorAnswer): Promise<string>;
  totpChallenge(privilegeToken: string): Promise<{ qrCode: string; secret: string }>;
  add(privilegeToken: string, device: NewDevice): Promise<void>;
  remove(privilegeToken: string, deviceName: string): Promise<void>;
}

export function useDeviceActions(): DeviceActions {
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: mfaDevicesQueryKey });
    return {
      reauthenticate: (answer) => createPrivilegeToken(answer),
      totpChallenge: (privilegeToken) => fetchTotpChallenge(privilegeToken),
      add: async (privilegeToken, device) => {
        await addMfaDevice(privilegeToken, device);
        await reload();
      },
      remove: async (privilegeToken, deviceName) => {
        await removeMfaDevice(privilegeToken, deviceName);
        await reload();
      },
    };
  }, [client]);
}
