import type { AuthConfig } from '@postern/contracts';
import { useState } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { useUserContext } from '../../app/userContext';
import { attemptOf } from '../../lib/attempt';
import type { MfaMethod } from '../../lib/secondFactor';
import { AccountView, type AccountSection } from './AccountView';
import { AddDeviceDialog, type NewDeviceType } from './AddDeviceDialog';
import { ChangePasswordView } from './ChangePasswordView';
import { DevicesView } from './DevicesView';
import { answerMethods, type Device } from './makeDevice';
import { ProfileView } from './ProfileView';
import { RemoveDeviceDialog } from './RemoveDeviceDialog';
import { useChangePassword, useDeviceActions, useMfaDevices } from './useAccount';

/** The kinds of device the cluster's settings let a user add. */
export function newDeviceTypes(auth: AuthConfig): NewDeviceType[] {
  const types: NewDeviceType[] = [];
  if (auth.second_factor !== 'webauthn') types.push('totp');
  if (auth.second_factor !== 'otp') {
    types.push('webauthn');
    if (auth.allowPasswordless) types.push('passkey');
  }
  return types;
}

function AccountSettings({ section }: { section: AccountSection }) {
  const { auth } = useClientConfig();
  const context = useUserContext();
  const devicesQuery = useMfaDevices();
  const changePassword = useChangePassword();
  const actions = useDeviceActions();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Device | null>(null);
  const [notice, setNotice] = useState<string>();

  const devices = devicesQuery.data ?? [];
  // Re-authentication answers with what the user has; a password change asks for nothing when
  // second factors are off.
  const reauthMethods = answerMethods(devices);
  const passwordMethods: MfaMethod[] = auth.second_factor === 'off' ? ['none'] : reauthMethods;

  return (
    <>
      <AccountView
        section={section}
        notice={notice}
        onDismissNotice={() => setNotice(undefined)}
        profile={<ProfileView profile={context} />}
        password={
          <ChangePasswordView
            methods={passwordMethods}
            onSubmit={(request) => changePassword.mutateAsync(request)}
          />
        }
        devices={
          <DevicesView
            attempt={attemptOf(devicesQuery)}
            onRetry={() => void devicesQuery.refetch()}
            onAdd={() => {
              setNotice(undefined);
              setAdding(true);
            }}
            onRemove={(device) => {
              setNotice(undefined);
              setRemoving(device);
            }}
          />
        }
      />
      <AddDeviceDialog
        opened={adding}
        onClose={() => setAdding(false)}
        methods={reauthMethods}
        deviceTypes={newDeviceTypes(auth)}
        actions={actions}
        onAdded={(name) => setNotice(`Added ${name}.`)}
      />
      <RemoveDeviceDialog
        device={removing}
        onClose={() => setRemoving(null)}
        methods={reauthMethods}
        actions={actions}
        onRemoved={(name) => setNotice(`Removed ${name}.`)}
      />
    </>
  );
}

export function AccountPage() {
  return <AccountSettings section="all" />;
}

export function AccountPasswordPage() {
  return <AccountSettings section="password" />;
}

export function AccountTwoFactorPage() {
  return <AccountSettings section="twofactor" />;
}
