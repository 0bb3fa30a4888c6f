import {
  Anchor,
  Button,
  Card,
  Center,
  Code,
  Divider,
  PasswordInput,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { minPasswordLength, type AuthConfig, type UserTokenDetails } from '@postern/contracts';
import { useState, type FormEvent, type ReactNode } from 'react';
import { MessageCard } from '../../components/MessageCard';
import { MfaMethodRadio, TotpForm, WebauthnForm } from '../../components/secondFactorForms';
import { PageLoader } from '../../components/PageLoader';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import { defaultMfaMethod, mfaMethodsFor, type MfaMethod } from '../../lib/secondFactor';
import { layout, space } from '../../theme/constants';
import type { NewCredential } from './userTokenApi';
import type { SubmitAttempt, TokenLoad } from './useUserToken';
import { FailureAlert } from '../../components/FailureAlert';

export type UserTokenKind = 'invite' | 'reset';

export const userTokenTitles: Record<UserTokenKind, string> = {
  invite: 'Invite',
  reset: 'Password Reset',
};

export const invalidLinkText = 'This link is invalid or has expired.';

/**
 * The way forward from a dead link. The server answers every bad token alike, so the page cannot
 * name the user: whoever runs Postern knows it (the first admin is `admin`).
 */
function NewLinkHelp() {
  return (
    <Text size="sm" ta="center" c="dimmed">
      To get a new one, ask an admin, or run <Code>postern users reset NAME</Code> with the same
      data dir on the Postern host (for the first admin: <Code>postern users reset admin</Code>
      ).
    </Text>
  );
}

/** What the user chose on the first step: a password, or a passkey instead of one. */
export type PasswordChoice = { password: string } | { passwordless: true };

export interface UserTokenViewProps {
  kind: UserTokenKind;
  auth: AuthConfig;
  load: TokenLoad;
  onRetry: () => void;
  /** 'password' is the first step; 'continue' the second factor (its own route). */
  step: 'password' | 'continue';
  choice: PasswordChoice | undefined;
  onChoose: (choice: PasswordChoice) => void;
  onBack: () => void;
  attempt: SubmitAttempt;
  onSubmit: (password: string | null, credential: NewCredential) => void;
}

/** Whether a second step follows the password: not when second factors are off. */
export function needsSecondStep(auth: AuthConfig): boolean {
  return auth.second_factor !== 'off';
}

const passkeyOffered = (auth: AuthConfig) => auth.allowPasswordless && auth.localAuthEnabled;

/**
 * The invite and reset screen (spec §2: one screen, titles 'Invite' and 'Password Reset'): a new
 * password, then the second factor (authenticator app or hardware key), or a passkey instead of
 * a password (spec §4: a reset without a password is passwordless).
 */
export function UserTokenView(props: UserTokenViewProps) {
  const { kind, load, onRetry } = props;
  if (load.status === 'loading') return <PageLoader />;
  if (load.status === 'invalid') {
    return (
      <MessageCard title={userTokenTitles[kind]}>
        <Text ta="center">{invalidLinkText}</Text>
        <NewLinkHelp />
      </MessageCard>
    );
  }
  if (load.status === 'error') {
    return (
      <MessageCard title={userTokenTitles[kind]}>
        <FailureAlert title="Could not load this link" message={load.message} />
        <Center>
          <Button onClick={onRetry}>Retry</Button>
        </Center>
      </MessageCard>
    );
  }
  const token = load.data;
  return props.step === 'continue' && props.choice ? (
    <SecondStep {...props} token={token} choice={props.choice} />
  ) : (
    <PasswordStep {...props} token={token} />
  );
}

function Frame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Center py={space[6]} px={space[3]}>
      <Card withBorder shadow="sm" padding="xl" w="100%" maw={layout.cardWidth}>
        <Stack gap="md">
          <Title order={1} size="h2" ta="center">
            {title}
          </Title>
          {children}
        </Stack>
      </Card>
    </Center>
  );
}

function SubmitError({ attempt }: { attempt: SubmitAttempt }) {
  if (attempt.status !== 'error') return null;
  return <FailureAlert title="Could not complete this step" message={attempt.message} />;
}

type StepProps = UserTokenViewProps & { token: UserTokenDetails };

function PasswordStep({ kind, auth, token, choice, onChoose, attempt, onSubmit }: StepProps) {
  const initial = choice && 'password' in choice ? choice.password : '';
  const [password, setPassword] = useState(initial);
  const [confirm, setConfirm] = useState(initial);
  const [errors, setErrors] = useState<{ password?: string; confirm?: string }>({});
  const twoSteps = needsSecondStep(auth);
  const busy = attempt.status === 'processing';
  const expiry = parseTimestamp(token.expiry);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = {
      password:
        password.length < minPasswordLength
          ? `Password must be at least ${minPasswordLength} characters`
          : undefined,
      confirm: confirm !== password ? 'Passwords do not match' : undefined,
    };
    setErrors(found);
    if (found.password || found.confirm) return;
    if (twoSteps) onChoose({ password });
    else onSubmit(password, { kind: 'none' });
  };

  return (
    <Frame title={kind === 'invite' ? 'Welcome to Postern' : 'Reset your password'}>
      <Text ta="center">
        {kind === 'invite' ? 'Choose a password for ' : 'Choose a new password for '}
        <strong>{token.user}</strong>.
      </Text>
      {!twoSteps && <SubmitError attempt={attempt} />}
      <form onSubmit={submit} noValidate aria-label="Choose a password">
        <Stack gap="sm">
          <PasswordInput
            label="Password"
            description={`At least ${minPasswordLength} characters`}
            autoComplete="new-password"
            autoFocus
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={errors.password}
          />
          <PasswordInput
            label="Confirm password"
            autoComplete="new-password"
            value={confirm}
            onChange={(e) => setConfirm(e.currentTarget.value)}
            error={errors.confirm}
          />
          <Button type="submit" loading={busy}>
            {twoSteps ? 'Next' : 'Submit'}
          </Button>
        </Stack>
      </form>
      {passkeyOffered(auth) && (
        <>
          <Divider label="or" labelPosition="center" />
          <Button variant="light" disabled={busy} onClick={() => onChoose({ passwordless: true })}>
            Use a passkey instead of a password
          </Button>
        </>
      )}
      {expiry && (
        <Text size="xs" c="dimmed" ta="center">
          This link expires at {formatDateTime(expiry)}.
        </Text>
      )}
    </Frame>
  );
}

function SecondStep(props: StepProps & { choice: PasswordChoice }) {
  const { choice, onBack } = props;
  const back = (
    <Text size="sm" ta="center">
      <Anchor component="button" type="button" onClick={onBack}>
        Back
      </Anchor>
    </Text>
  );
  if ('passwordless' in choice) {
    return (
      <Frame title="Register a passkey">
        <Text size="sm">
          Your passkey signs you in without a password. Name it, then follow your browser&apos;s
          prompts.
        </Text>
        <SubmitError attempt={props.attempt} />
        <WebauthnForm
          defaultName="passkey"
          button="Register passkey"
          busy={props.attempt.status === 'processing'}
          onSubmit={(deviceName) =>
            props.onSubmit(null, { kind: 'webauthn', usage: 'passwordless', deviceName })
          }
        />
        {back}
      </Frame>
    );
  }
  return (
    <Frame title="Set up two-factor authentication">
      <MfaRegistration {...props} password={choice.password} />
      {back}
    </Frame>
  );
}

function MfaRegistration({
  auth,
  token,
  attempt,
  onSubmit,
  password,
}: StepProps & { password: string }) {
  const methods = mfaMethodsFor(auth.second_factor);
  const [method, setMethod] = useState<MfaMethod>(() =>
    defaultMfaMethod(methods, auth.preferredLocalMfa),
  );
  const busy = attempt.status === 'processing';
  return (
    <>
      <MfaMethodRadio methods={methods} value={method} onChange={setMethod} />
      <SubmitError attempt={attempt} />
      {method === 'otp' && (
        <TotpForm
          qrCode={token.qrCode}
          secret={token.totpSecret}
          busy={busy}
          onSubmit={(code) => onSubmit(password, { kind: 'otp', code })}
        />
      )}
      {method === 'webauthn' && (
        <WebauthnForm
          defaultName="hardware-key"
          button="Register hardware key"
          busy={busy}
          onSubmit={(deviceName) =>
            onSubmit(password, { kind: 'webauthn', usage: 'mfa', deviceName })
          }
        />
      )}
      {method === 'none' && (
        <Button loading={busy} onClick={() => onSubmit(password, { kind: 'none' })}>
          Submit
        </Button>
      )}
    </>
  );
}
