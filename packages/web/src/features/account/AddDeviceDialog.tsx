import { Modal, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { PageLoader } from '../../components/PageLoader';
import { MfaMethodRadio, TotpForm, WebauthnForm } from '../../components/secondFactorForms';
import type { MfaMethod } from '../../lib/secondFactor';
import type { NewDevice, SecondFactorAnswer } from './accountApi';
import { ReauthenticateForm } from './ReauthenticateForm';
import type { DeviceActions } from './useAccount';
import { FailureAlert } from '../../components/FailureAlert';

export type NewDeviceType = 'totp' | 'webauthn' | 'passkey';

export const newDeviceTypeLabels: Record<NewDeviceType, string> = {
  totp: 'Authenticator App',
  webauthn: 'Hardware Key',
  passkey: 'Passkey',
};

interface Props {
  opened: boolean;
  onClose: () => void;
  /** What the user can re-authenticate with. */
  methods: MfaMethod[];
  /** What kinds of device the cluster lets the user add. */
  deviceTypes: NewDeviceType[];
  actions: Pick<DeviceActions, 'reauthenticate' | 'totpChallenge' | 'add'>;
  onAdded: (deviceName: string) => void;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Adding a device: re-authenticate for a privilege token, choose the kind of device, then
 * register it (an authenticator app proves itself with a code; a key or passkey through the
 * browser).
 */
export function AddDeviceDialog(props: Props) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Add two-factor device" centered>
      {/* Mounted only while open, so every opening starts from the first step. */}
      {props.opened && <AddDeviceSteps {...props} />}
    </Modal>
  );
}

function AddDeviceSteps({ methods, deviceTypes, actions, onAdded, onClose }: Props) {
  const [privilegeToken, setPrivilegeToken] = useState<string>();
  // Nothing is chosen for the user when there is a choice: choosing an authenticator app
  // creates its secret on the server.
  const [type, setType] = useState<NewDeviceType | undefined>(
    deviceTypes.length === 1 ? deviceTypes[0] : undefined,
  );
  const [totp, setTotp] = useState<{ qrCode: string; secret: string }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const reauthenticate = (answer: SecondFactorAnswer) =>
    run(async () => setPrivilegeToken(await actions.reauthenticate(answer)));

  // The app's secret is made once per privilege token, when the user picks an authenticator app.
  const needTotp = privilegeToken !== undefined && type === 'totp' && !totp;
  useEffect(() => {
    if (!needTotp) return;
    let cancelled = false;
    actions.totpChallenge(privilegeToken).then(
      (challenge) => !cancelled && setTotp(challenge),
      (err: unknown) => !cancelled && setError(messageOf(err)),
    );
    return () => {
      cancelled = true;
    };
  }, [needTotp, privilegeToken, actions]);

  const add = (device: NewDevice) =>
    run(async () => {
      if (!privilegeToken) return;
      await actions.add(privilegeToken, device);
      onAdded(device.deviceName);
      onClose();
    });

  return (
    <Stack gap="md">
      {error && <FailureAlert title="Could not add the device" message={error} />}
      {privilegeToken === undefined ? (
        <ReauthenticateForm
          methods={methods}
          busy={busy}
          submitLabel={methods.includes('none') ? 'Continue' : 'Verify'}
          onSubmit={(answer) => void reauthenticate(answer)}
        />
      ) : (
        <>
          {type === undefined && <Text size="sm">Choose the kind of device to add.</Text>}
          <MfaMethodRadio
            label="Device type"
            methods={deviceTypes}
            labels={newDeviceTypeLabels}
            value={type}
            onChange={(next) => {
              setError(undefined);
              setType(next);
            }}
          />
          {type === 'totp' &&
            (totp ? (
              <TotpForm
                qrCode={totp.qrCode}
                secret={totp.secret}
                busy={busy}
                button="Add device"
                defaultDeviceName="authenticator-app"
                onSubmit={(code, deviceName) => void add({ kind: 'otp', code, deviceName })}
              />
            ) : (
              !error && <PageLoader label="Preparing the authenticator app" />
            ))}
          {type === 'webauthn' && (
            <WebauthnForm
              key="webauthn"
              defaultName="hardware-key"
              button="Register hardware key"
              busy={busy}
              onSubmit={(deviceName) => void add({ kind: 'webauthn', usage: 'mfa', deviceName })}
            />
          )}
          {type === 'passkey' && (
            <WebauthnForm
              key="passkey"
              defaultName="passkey"
              button="Register passkey"
              busy={busy}
              onSubmit={(deviceName) =>
                void add({ kind: 'webauthn', usage: 'passwordless', deviceName })
              }
            />
          )}
        </>
      )}
    </Stack>
  );
}
