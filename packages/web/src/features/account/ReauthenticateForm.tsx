import { Button, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { CodeInput, MfaMethodRadio } from '../../components/secondFactorForms';
import type { MfaMethod } from '../../lib/secondFactor';
import type { SecondFactorAnswer } from './accountApi';

interface Props {
  /** What the user's devices can answer with; ['none'] when there are none. */
  methods: MfaMethod[];
  busy: boolean;
  submitLabel: string;
  submitColor?: string;
  onSubmit: (answer: SecondFactorAnswer) => void;
}

/** Proving it is still the user before a device changes: a code or a hardware key. */
export function ReauthenticateForm({ methods, busy, submitLabel, submitColor, onSubmit }: Props) {
  const [method, setMethod] = useState<MfaMethod>(methods[0] ?? 'none');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (method === 'otp' && !code.trim()) {
      setError('Authenticator code is required');
      return;
    }
    setError(undefined);
    onSubmit(method === 'otp' ? { kind: 'otp', code: code.trim() } : { kind: method });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Verify it is you">
      <Stack gap="sm">
        {method === 'none' ? (
          <Text size="sm">You have no two-factor devices yet.</Text>
        ) : (
          <Text size="sm">Verify it is you with one of your two-factor devices.</Text>
        )}
        <MfaMethodRadio methods={methods} value={method} onChange={setMethod} />
        {method === 'otp' && <CodeInput value={code} onChange={setCode} error={error} />}
        {method === 'webauthn' && (
          <Text size="sm" c="dimmed">
            Your browser asks for your hardware key or passkey.
          </Text>
        )}
        <Button type="submit" loading={busy} color={submitColor}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
