import { Button, Center, Code, Group, Image, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useId, useState, type FormEvent } from 'react';
import { mfaMethodLabels } from '../lib/secondFactor';

/**
 * The pieces every second-factor screen shares (sign-in, invite and reset, account settings):
 * the method choice, an authenticator app's enrolment, and a WebAuthn device's name.
 */

/** A choice between methods, shown only when there is one to make. */
export function MfaMethodRadio<M extends string>({
  methods,
  value,
  onChange,
  label = 'Second factor',
  labels = mfaMethodLabels as Record<M, string>,
}: {
  methods: M[];
  /** Undefined: nothing chosen yet. */
  value: M | undefined;
  onChange: (value: M) => void;
  label?: string;
  labels?: Record<M, string>;
}) {
  if (methods.length < 2) return null;
  return (
    <Radio.Group label={label} value={value ?? null} onChange={(v) => onChange(v as M)}>
      <Group gap="md" mt={4}>
        {methods.map((m) => (
          <Radio key={m} value={m} label={labels[m]} />
        ))}
      </Group>
    </Radio.Group>
  );
}

function DeviceNameInput({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  return (
    <TextInput
      label="Device name"
      maxLength={64}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
    />
  );
}

/** A one-time code from an authenticator app. */
export function CodeInput({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  return (
    <TextInput
      label="Authenticator code"
      autoComplete="one-time-code"
      inputMode="numeric"
      maxLength={8}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
    />
  );
}

/** Scan (or type) the secret into an authenticator app, then prove it with a code. */
export function TotpForm({
  qrCode,
  secret,
  busy,
  button = 'Submit',
  defaultDeviceName,
  onSubmit,
}: {
  qrCode: string;
  secret: string;
  busy: boolean;
  button?: string;
  /** Asks for a device name too (starting from this one) when given. */
  defaultDeviceName?: string;
  onSubmit: (code: string, deviceName: string) => void;
}) {
  const secretLabelId = useId();
  const [code, setCode] = useState('');
  const [name, setName] = useState(defaultDeviceName ?? '');
  const [errors, setErrors] = useState<{ code?: string; name?: string }>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = {
      code: code.trim() ? undefined : 'Authenticator code is required',
      name: defaultDeviceName !== undefined && !name.trim() ? 'Device name is required' : undefined,
    };
    setErrors(found);
    if (found.code || found.name) return;
    onSubmit(code.trim(), name.trim());
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Register an authenticator app">
      <Stack gap="sm">
        <Text size="sm">
          Scan the QR code with your authenticator app, then enter the code it shows.
        </Text>
        <Center>
          <Image src={qrCode} alt="QR code for your authenticator app" w={180} h={180} />
        </Center>
        <Stack gap={4}>
          <Text size="sm" fw={500} id={secretLabelId}>
            Secret key
          </Text>
          <Code
            block
            data-testid="totp-secret"
            aria-labelledby={secretLabelId}
            style={{ userSelect: 'all', overflowWrap: 'anywhere' }}
          >
            {secret}
          </Code>
          <Text size="xs" c="dimmed">
            Can&apos;t scan the code? Enter this key in your app instead.
          </Text>
        </Stack>
        {defaultDeviceName !== undefined && (
          <DeviceNameInput value={name} onChange={setName} error={errors.name} />
        )}
        <CodeInput value={code} onChange={setCode} error={errors.code} />
        <Button type="submit" loading={busy}>
          {button}
        </Button>
      </Stack>
    </form>
  );
}

/** Name a new hardware key or passkey, then let the browser create the credential. */
export function WebauthnForm({
  defaultName,
  button,
  busy,
  onSubmit,
}: {
  defaultName: string;
  button: string;
  busy: boolean;
  onSubmit: (deviceName: string) => void;
}) {
  const [name, setName] = useState(defaultName);
  const [error, setError] = useState<string>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setError('Device name is required');
      return;
    }
    setError(undefined);
    onSubmit(name.trim());
  };
  return (
    <form onSubmit={submit} noValidate aria-label={button}>
      <Stack gap="sm">
        <DeviceNameInput value={name} onChange={setName} error={error} />
        <Button type="submit" loading={busy}>
          {button}
        </Button>
      </Stack>
    </form>
  );
}
