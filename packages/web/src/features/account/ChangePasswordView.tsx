import { Alert, Button, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { minPasswordLength } from '@postern/contracts';
import { useState, type FormEvent } from 'react';
import { CodeInput, MfaMethodRadio } from '../../components/secondFactorForms';
import type { MfaMethod } from '../../lib/secondFactor';
import type { ChangePassword } from './accountApi';
import { FailureAlert } from '../../components/FailureAlert';

interface Props {
  /** The second factors the user can answer with; ['none'] when none is asked for. */
  methods: MfaMethod[];
  /** Resolves when the password has changed; rejects with the message to show. */
  onSubmit: (request: ChangePassword) => Promise<void>;
}

type Field = 'oldPassword' | 'newPassword' | 'confirm' | 'code';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Change the password: the current one, the new one twice, and a second factor. */
export function ChangePasswordView({ methods, onSubmit }: Props) {
  const [values, setValues] = useState<Record<Field, string>>({
    oldPassword: '',
    newPassword: '',
    confirm: '',
    code: '',
  });
  const [chosen, setChosen] = useState<MfaMethod>();
  const method = chosen && methods.includes(chosen) ? chosen : (methods[0] ?? 'none');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [status, setStatus] = useState<
    { state: 'idle' | 'busy' | 'done' } | { state: 'error'; message: string }
  >({ state: 'idle' });

  const set = (field: Field) => (value: string) => setValues((v) => ({ ...v, [field]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Partial<Record<Field, string>> = {
      oldPassword: values.oldPassword ? undefined : 'Current password is required',
      newPassword:
        values.newPassword.length < minPasswordLength
          ? `Password must be at least ${minPasswordLength} characters`
          : undefined,
      confirm: values.confirm !== values.newPassword ? 'Passwords do not match' : undefined,
      code: method === 'otp' && !values.code.trim() ? 'Authenticator code is required' : undefined,
    };
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setStatus({ state: 'busy' });
    try {
      await onSubmit({
        oldPassword: values.oldPassword,
        newPassword: values.newPassword,
        secondFactor:
          method === 'otp' ? { kind: 'otp', code: values.code.trim() } : { kind: method },
      });
    } catch (err) {
      setStatus({ state: 'error', message: messageOf(err) });
      return;
    }
    setValues({ oldPassword: '', newPassword: '', confirm: '', code: '' });
    setStatus({ state: 'done' });
  };

  return (
    <Stack gap="sm" maw={480}>
      <Title order={3}>Change password</Title>
      {status.state === 'done' && (
        <Alert color="green" role="status">
          Your password has been changed.
        </Alert>
      )}
      {status.state === 'error' && (
        <FailureAlert title="Could not change the password" message={status.message} />
      )}
      <form onSubmit={(e) => void submit(e)} noValidate aria-label="Change password">
        <Stack gap="sm">
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            value={values.oldPassword}
            onChange={(e) => set('oldPassword')(e.currentTarget.value)}
            error={errors.oldPassword}
          />
          <PasswordInput
            label="New password"
            description={`At least ${minPasswordLength} characters`}
            autoComplete="new-password"
            value={values.newPassword}
            onChange={(e) => set('newPassword')(e.currentTarget.value)}
            error={errors.newPassword}
          />
          <PasswordInput
            label="Confirm new password"
            autoComplete="new-password"
            value={values.confirm}
            onChange={(e) => set('confirm')(e.currentTarget.value)}
            error={errors.confirm}
          />
          <MfaMethodRadio methods={methods} value={method} onChange={setChosen} />
          {method === 'otp' && (
            <CodeInput value={values.code} onChange={set('code')} error={errors.code} />
          )}
          {method === 'webauthn' && (
            <Text size="sm" c="dimmed">
              After you select Update password, your browser asks for your hardware key.
            </Text>
          )}
          <Button type="submit" loading={status.state === 'busy'} style={{ alignSelf: 'start' }}>
            Update password
          </Button>
        </Stack>
      </form>
    </Stack>
  );
}
