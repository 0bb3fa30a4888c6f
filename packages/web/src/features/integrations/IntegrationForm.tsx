import { Button, Group, NativeSelect, PasswordInput, Stack, TextInput } from '@mantine/core';
import type { IntegrationInput, IntegrationType } from '@postern/contracts';
import { useState, type FormEvent, type ReactNode } from 'react';
import {
  secretFields,
  validateIntegration,
  type IntegrationErrors,
  type IntegrationField,
  type IntegrationFormValues,
} from './integrationForm';
import { FailureAlert } from '../../components/FailureAlert';

export interface IntegrationFormProps {
  type: IntegrationType;
  initial: IntegrationFormValues;
  /** Editing a stored integration: the secrets it has (left empty, they are kept). */
  editing?: { secretsSet: string[] };
  onSubmit: (input: IntegrationInput) => Promise<void>;
  /** The way out (a link back, or a dialog's Cancel). */
  cancel: ReactNode;
  submitLabel: string;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const securityOptions = [
  { value: 'starttls', label: 'STARTTLS' },
  { value: 'tls', label: 'TLS' },
  { value: 'none', label: 'None (loopback only)' },
];

/** One integration type's settings, checked as the server will check them. */
export function IntegrationForm(props: IntegrationFormProps) {
  const { type, initial, editing, cancel, submitLabel } = props;
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<IntegrationErrors>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const field = (key: IntegrationField, label: string, extra: { description?: string } = {}) => {
    const secret = secretFields[type].includes(key);
    const stored = secret && editing?.secretsSet.includes(key);
    const Input = secret ? PasswordInput : TextInput;
    return (
      <Input
        label={label}
        description={stored ? 'Stored. Leave empty to keep it.' : extra.description}
        value={values[key]}
        onChange={(e) => {
          const value = e.currentTarget.value;
          setValues((v) => ({ ...v, [key]: value }));
        }}
        error={errors[key]}
        autoComplete={secret ? 'new-password' : 'off'}
        disabled={key === 'name' && editing !== undefined}
      />
    );
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { errors: found, input } = validateIntegration(type, values, editing !== undefined);
    setErrors(found);
    if (!input) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await props.onSubmit(input);
    } catch (err) {
      setServerError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="sm">
        {field('name', 'Name', { description: 'Lower-case letters, digits and dashes' })}
        {type === 'webhook' && (
          <>
            {field('url', 'URL')}
            {field('signingSecret', 'Signing secret', {
              description:
                'Optional, at least 16 characters: signs each call (X-Postern-Signature)',
            })}
          </>
        )}
        {(type === 'slack' || type === 'mattermost') && (
          <>
            {field('url', 'Webhook URL')}
            {field('channel', 'Channel', { description: 'Optional' })}
          </>
        )}
        {type === 'email' && (
          <>
            {field('host', 'SMTP host')}
            {field('port', 'Port')}
            <NativeSelect
              label="Security"
              data={securityOptions}
              value={values.security}
              onChange={(e) => {
                const security = e.currentTarget.value as IntegrationFormValues['security'];
                setValues((v) => ({ ...v, security }));
              }}
            />
            {field('username', 'Username', { description: 'Optional' })}
            {field('password', 'Password')}
            {field('from', 'From')}
            {field('fallbackRecipients', 'Fallback recipients', {
              description: 'For reviewers without an e-mail address; separated by commas',
            })}
          </>
        )}
        {serverError && (
          <FailureAlert title="Could not save the integration" message={serverError} />
        )}
        <Group justify="flex-end" mt="sm">
          {cancel}
          <Button type="submit" loading={busy}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
