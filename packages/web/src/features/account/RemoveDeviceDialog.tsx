import { Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { MfaMethod } from '../../lib/secondFactor';
import type { SecondFactorAnswer } from './accountApi';
import type { Device } from './makeDevice';
import { ReauthenticateForm } from './ReauthenticateForm';
import type { DeviceActions } from './useAccount';
import { FailureAlert } from '../../components/FailureAlert';

interface Props {
  /** The device to remove; the dialog is open while there is one. */
  device: Device | null;
  onClose: () => void;
  methods: MfaMethod[];
  actions: Pick<DeviceActions, 'reauthenticate' | 'remove'>;
  onRemoved: (deviceName: string) => void;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Removing a device: confirm, re-authenticate for a privilege token, delete. The server refuses
 * to remove the last device while a second factor is required; its message is shown as is.
 */
export function RemoveDeviceDialog({ device, onClose, methods, actions, onRemoved }: Props) {
  return (
    <Modal opened={device !== null} onClose={onClose} title="Remove device" centered>
      {device && (
        <RemoveDeviceSteps
          key={device.id}
          device={device}
          methods={methods}
          actions={actions}
          onRemoved={onRemoved}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}

function RemoveDeviceSteps({
  device,
  methods,
  actions,
  onRemoved,
  onClose,
}: Omit<Props, 'device'> & { device: Device }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const remove = async (answer: SecondFactorAnswer) => {
    setBusy(true);
    setError(undefined);
    try {
      const privilegeToken = await actions.reauthenticate(answer);
      await actions.remove(privilegeToken, device.name);
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
      return;
    }
    onRemoved(device.name);
    onClose();
  };

  return (
    <Stack gap="md">
      <Text>
        Remove <strong>{device.name}</strong>? It will no longer work as a second factor
        {device.passkey ? ' or for signing in' : ''}.
      </Text>
      {error && <FailureAlert title="Could not remove the device" message={error} />}
      <ReauthenticateForm
        methods={methods}
        busy={busy}
        submitLabel="Remove"
        submitColor="red"
        onSubmit={(answer) => void remove(answer)}
      />
    </Stack>
  );
}
