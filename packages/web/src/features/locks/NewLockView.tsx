import { lockTargetKinds, type CreateLockRequest, type LockTargetKind } from '@postern/contracts';
import {
  Button,
  Group,
  NativeSelect,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import { DateTimeField } from '../../components/DateTimeField';
import { routePath } from '../../app/routes';
import { lockTargetLabels } from './makeLock';
import {
  emptyNewLockForm,
  ttlSuggestions,
  validateNewLock,
  type NewLockErrors,
  type NewLockForm,
} from './newLockForm';
import { FailureAlert } from '../../components/FailureAlert';

/** Whose device to lock: their devices are offered as the target name (the kind MFA Device). */
export interface DeviceOwnerField {
  value: string;
  onChange(name: string): void;
  /** The owner's devices once listed: the ID, and how a person tells it apart. */
  devices: { id: string; label: string }[];
  /** Why they could not be listed (no such user, or not one the viewer may read). */
  error?: string | undefined;
}

export interface NewLockViewProps {
  /** Names to offer per target kind (users and roles the user may list); free text always works. */
  suggestions: Partial<Record<LockTargetKind, string[]>>;
  /** Absent where the viewer may not read users: the device's ID is then typed or pasted. */
  deviceOwner?: DeviceOwnerField | undefined;
  /**
   * Targets named by an ID to offer, with what tells them apart: access requests (whose, what),
   * bot instances (which bot, when it joined).
   */
  choices?: Partial<Record<LockTargetKind, { id: string; label: string }[]>> | undefined;
  /** What the form starts with (a link from a request's page names the request). */
  initial?: NewLockForm | undefined;
  /** Creates the lock; rejects with the server's error, which the form shows. */
  onSubmit: (request: CreateLockRequest) => Promise<void>;
  now?: () => Date;
}

const kindOptions = lockTargetKinds.map((kind) => ({ value: kind, label: lockTargetLabels[kind] }));
const namePlaceholders: Record<LockTargetKind, string> = {
  user: 'alice',
  role: 'contractors',
  login: 'root',
  node: 'hostname or server ID',
  windows_desktop: 'desktop name',
  mfa_device: 'device ID (UUID)',
  access_request: 'request ID (UUID)',
  bot_instance: 'instance ID (UUID), from Manage Bots',
};
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Create New Lock: what to lock, why, and for how long. */
export function NewLockView({
  suggestions,
  deviceOwner,
  choices = {},
  initial,
  onSubmit,
  now = () => new Date(),
}: NewLockViewProps) {
  const [start] = useState<NewLockForm>(() => initial ?? emptyNewLockForm());
  const [form, setForm] = useState<NewLockForm>(start);
  const [errors, setErrors] = useState<NewLockErrors>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // Suggestions are the browser's own (a datalist): free text stays possible, and no dropdown of
  // ours covers the form.
  const id = useId();
  const nameListId = `${id}-names`;
  const ownerListId = `${id}-owners`;
  const pickingDevice = form.kind === 'mfa_device' && deviceOwner !== undefined;
  const labelled = pickingDevice ? deviceOwner.devices : choices[form.kind];
  const nameOptions = labelled
    ? labelled.map((choice) => ({ value: choice.id, label: choice.label }))
    : (suggestions[form.kind] ?? []).map((name) => ({ value: name, label: undefined }));
  const ttlListId = `${id}-ttls`;
  const set = <K extends keyof NewLockForm>(key: K, value: NewLockForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  // Unsaved edits ask before the page is left (spec §2); saving leaves for the list, unasked.
  const edited = JSON.stringify(form) !== JSON.stringify(start);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = validateNewLock(form, now());
    setErrors(checked.errors);
    if (!checked.request) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await onSubmit(checked.request);
    } catch (err) {
      setServerError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <Stack gap="md" maw={560}>
      <Title order={2}>Create New Lock</Title>
      <Text size="sm" c="dimmed">
        While a lock is in force its target cannot sign in, renew a session or call the API.
      </Text>
      <NavigationBlocker when={edited && !busy} />
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <NativeSelect
            label="Target kind"
            data={kindOptions}
            value={form.kind}
            onChange={(e) => set('kind', e.currentTarget.value as LockTargetKind)}
            error={errors.kind}
          />
          {pickingDevice && (
            <>
              <TextInput
                label="Device owner"
                description="Whose device: their devices are offered as the target name"
                value={deviceOwner.value}
                onChange={(e) => deviceOwner.onChange(e.currentTarget.value)}
                error={deviceOwner.error}
                autoComplete="off"
                list={ownerListId}
              />
              <datalist id={ownerListId}>
                {(suggestions.user ?? []).map((name) => (
                  <option key={name} value={name} />
                ))}
              </datalist>
            </>
          )}
          <TextInput
            label="Target name"
            placeholder={namePlaceholders[form.kind]}
            value={form.name}
            onChange={(e) => set('name', e.currentTarget.value)}
            error={errors.name}
            required
            // Labels stay exactly their text (no asterisk); the form says what is missing.
            withAsterisk={false}
            autoComplete="off"
            list={nameListId}
          />
          <datalist id={nameListId}>
            {nameOptions.map(({ value, label }) => (
              <option key={value} value={value} label={label} />
            ))}
          </datalist>
          <Textarea
            label="Message"
            description="Shown to the locked user"
            value={form.message}
            onChange={(e) => set('message', e.currentTarget.value)}
            error={errors.message}
            rows={3}
          />
          <TextInput
            label="TTL"
            description="How long the lock lasts: 1h, 8h, 24h, any duration such as 1h30m, or never"
            value={form.ttl}
            onChange={(e) => set('ttl', e.currentTarget.value)}
            error={errors.ttl}
            autoComplete="off"
            list={ttlListId}
          />
          <datalist id={ttlListId}>
            {ttlSuggestions.map((ttl) => (
              <option key={ttl} value={ttl} />
            ))}
          </datalist>
          <DateTimeField
            optional
            width="100%"
            label="Expires at"
            description="Instead of a TTL (leave the TTL at never): the lock ends at this time"
            value={form.expiresAt}
            onChange={(expiresAt) => set('expiresAt', expiresAt)}
            error={errors.expiresAt}
          />
          {serverError && <FailureAlert title="Could not create the lock" message={serverError} />}
          <Group justify="flex-end" mt="sm">
            <Button variant="default" component={Link} to={routePath('locks')}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Create Lock
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
