import {
  Alert,
  Button,
  Card,
  Center,
  Divider,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { lockedRequestHint, type AuthConfig, type AuthProvider } from '@postern/contracts';
import { useState, type FormEvent } from 'react';
import { ConnectorKindIcon } from '../../components/ConnectorKindIcon';
import { CodeInput, MfaMethodRadio } from '../../components/secondFactorForms';
import { mfaMethodsFor, signInMfaMethod, type MfaMethod } from '../../lib/secondFactor';
import { layout, space } from '../../theme/constants';
import { providerLabel, signInMethods, type AuthMethodKind } from './authOptions';
import type { LocalLogin, LoginAttempt } from './useLogin';
import { FailureAlert } from '../../components/FailureAlert';

export interface LoginViewProps {
  auth: AuthConfig;
  attempt: LoginAttempt;
  /** The second factor this browser last signed in with: the form starts with it. */
  lastMfaMethod?: MfaMethod;
  /** The message of the lock that ended the last session, if one did. */
  lockedNotice?: string;
  onDismissLockedNotice?: () => void;
  onLogin: (values: LocalLogin) => void;
  onPasskey: () => void;
  onProvider: (provider: AuthProvider) => void;
}

/**
 * The login page (spec §1, §4): the message of the day first when there is one, then the primary
 * sign-in method, then the others under 'Other sign-in options'.
 */
export function LoginView(props: LoginViewProps) {
  const { auth, attempt } = props;
  const [acknowledged, setAcknowledged] = useState(false);
  const showMotd = auth.motd.trim() !== '' && !acknowledged;
  const { primary, others } = signInMethods(auth);

  const section = (kind: AuthMethodKind, isPrimary: boolean) => {
    switch (kind) {
      case 'local':
        return <LocalForm key={kind} {...props} primary={isPrimary} />;
      case 'passwordless':
        return <PasskeySignIn key={kind} {...props} primary={isPrimary} />;
      case 'sso':
        return <SsoButtons key={kind} {...props} primary={isPrimary} />;
    }
  };

  return (
    <Center py={space[6]} px={space[3]}>
      <Card withBorder shadow="sm" padding="xl" w="100%" maw={layout.cardWidth}>
        <Stack gap="md">
          <Title order={1} size="h2" ta="center">
            Sign in to Postern
          </Title>
          {props.lockedNotice !== undefined && (
            <LockedNotice message={props.lockedNotice} onDismiss={props.onDismissLockedNotice} />
          )}
          {showMotd ? (
            <>
              <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{auth.motd}</Text>
              <Button onClick={() => setAcknowledged(true)}>Acknowledge</Button>
            </>
          ) : (
            <>
              {attempt.status === 'error' && (
                <FailureAlert title="Sign in failed" message={attempt.message} />
              )}
              {primary ? (
                section(primary, true)
              ) : (
                <Text ta="center">No sign-in method is enabled on this cluster.</Text>
              )}
              {others.length > 0 && (
                <>
                  <Divider label="Other sign-in options" labelPosition="center" />
                  {others.map((kind) => section(kind, false))}
                </>
              )}
            </>
          )}
        </Stack>
      </Card>
    </Center>
  );
}

/**
 * Why the last session ended: the lock's message, as plain text. It comes from this browser's
 * storage (the session lifecycle wrote it), never from the URL, so no link can make it say more.
 */
function LockedNotice({ message, onDismiss }: { message: string; onDismiss?: () => void }) {
  return (
    <Alert
      color="red"
      role="region"
      aria-label="Access locked"
      withCloseButton={onDismiss !== undefined}
      closeButtonLabel="Dismiss"
      onClose={onDismiss}
    >
      <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
        Access locked: {message}
      </Text>
      <Text size="sm" mt={4}>
        {message.includes(lockedRequestHint)
          ? 'Your session was ended: it had assumed the locked request. Signing in again starts one without it.'
          : 'Your session was ended. Signing in works again once an administrator removes the lock.'}
      </Text>
    </Alert>
  );
}

type SectionProps = LoginViewProps & { primary: boolean };

function LocalForm({ auth, attempt, onLogin, primary, lastMfaMethod }: SectionProps) {
  const methods = mfaMethodsFor(auth.second_factor);
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [method, setMethod] = useState<MfaMethod>(() =>
    signInMfaMethod(methods, auth.preferredLocalMfa, lastMfaMethod),
  );
  const [errors, setErrors] = useState<Partial<Record<'user' | 'password' | 'code', string>>>({});
  const busy = attempt.status === 'processing';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = {
      user: user.trim() ? undefined : 'Username is required',
      password: password ? undefined : 'Password is required',
      code: method === 'otp' && !code.trim() ? 'Authenticator code is required' : undefined,
    };
    setErrors(found);
    if (found.user || found.password || found.code) return;
    onLogin({ user: user.trim(), password, method, code });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Sign in with a password">
      <Stack gap="sm">
        <TextInput
          label="Username"
          autoComplete="username"
          autoFocus={primary}
          value={user}
          onChange={(e) => setUser(e.currentTarget.value)}
          error={errors.user}
        />
        <PasswordInput
          label="Password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={errors.password}
        />
        <MfaMethodRadio methods={methods} value={method} onChange={setMethod} />
        {method === 'otp' && <CodeInput value={code} onChange={setCode} error={errors.code} />}
        {method === 'webauthn' && (
          <Text size="sm" c="dimmed">
            After you select Sign in, your browser asks for your hardware key.
          </Text>
        )}
        <Button type="submit" loading={busy} variant={primary ? 'filled' : 'light'}>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}

function PasskeySignIn({ attempt, onPasskey, primary }: SectionProps) {
  return (
    <Button
      onClick={onPasskey}
      loading={attempt.status === 'processing'}
      variant={primary ? 'filled' : 'light'}
    >
      Sign in with a passkey
    </Button>
  );
}

function SsoButtons({ auth, attempt, onProvider, primary }: SectionProps) {
  return (
    <Stack gap="xs">
      {auth.providers.map((provider) => (
        <Button
          key={provider.name}
          onClick={() => onProvider(provider)}
          disabled={attempt.status === 'processing'}
          variant={primary ? 'filled' : 'default'}
          // The label says which provider; the icon only repeats its kind for the eye.
          leftSection={<ConnectorKindIcon kind={provider.type} size="sm" decorative />}
        >
          {providerLabel(provider)}
        </Button>
      ))}
    </Stack>
  );
}
