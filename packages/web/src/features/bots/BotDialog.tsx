import {
  botTokenTtlSuggestions,
  createBotRequestSchema,
  type BotJson,
  type CreateBotRequest,
} from '@postern/contracts';
import { Button, Group, Modal, MultiSelect, Stack, TagsInput, TextInput } from '@mantine/core';
import { useId, useState, type FormEvent } from 'react';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import { FailureAlert } from '../../components/FailureAlert';

export type BotDialogTarget = { mode: 'create' } | { mode: 'edit'; bot: BotJson };

export interface BotDialogProps {
  /** Open while there is a target. */
  target: BotDialogTarget | null;
  /** Role names to choose from; undefined when the user cannot list roles (typed in then). */
  roleOptions: string[] | undefined;
  onClose: () => void;
  /** Creates or saves; rejects with the server's error, which the dialog shows. */
  onSubmit: (request: CreateBotRequest, target: BotDialogTarget) => Promise<void>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Create Bot (name, roles, logins, the join token's life) and Edit Bot (roles and logins). */
export function BotDialog({ target, roleOptions, onClose, onSubmit }: BotDialogProps) {
  return (
    <Modal
      opened={target !== null}
      onClose={onClose}
      title={target?.mode === 'edit' ? `Edit Bot ${target.bot.name}` : 'Create Bot'}
      size="lg"
      centered
    >
      {target && (
        <BotForm
          key={target.mode === 'edit' ? target.bot.name : 'create'}
          target={target}
          roleOptions={roleOptions}
          onClose={onClose}
          onSubmit={onSubmit}
        />
      )}
    </Modal>
  );
}

type FieldErrors = Partial<Record<'name' | 'roles' | 'logins' | 'token_ttl', string>>;

/** The form's values checked with the API's own rules, as messages per field. */
export function checkBotForm(request: CreateBotRequest): FieldErrors {
  const checked = createBotRequestSchema.safeParse(request);
  if (checked.success) return {};
  const errors: FieldErrors = {};
  for (const issue of checked.error.issues) {
    const field = issue.path[0] as keyof FieldErrors;
    errors[field] ??= issue.message;
  }
  return errors;
}

function BotForm({
  target,
  roleOptions,
  onClose,
  onSubmit,
}: Omit<BotDialogProps, 'target'> & { target: BotDialogTarget }) {
  const editing = target.mode === 'edit' ? target.bot : undefined;
  const [initial] = useState(() => ({
    name: editing?.name ?? '',
    roles: editing?.roles ?? [],
    logins: editing?.logins ?? [],
    ttl: '1h',
  }));
  const [name, setName] = useState(initial.name);
  const [roles, setRoles] = useState<string[]>(initial.roles);
  const [logins, setLogins] = useState<string[]>(initial.logins);
  const [ttl, setTtl] = useState(initial.ttl);
  const edited = JSON.stringify({ name, roles, logins, ttl }) !== JSON.stringify(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const ttlListId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const request: CreateBotRequest = {
      name: name.trim(),
      roles,
      logins,
      ...(editing ? {} : { token_ttl: ttl.trim() }),
    };
    const found = checkBotForm(request);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await onSubmit(request, target);
    } catch (err) {
      setServerError(messageOf(err));
      setBusy(false);
    }
  };

  // Roles the bot holds but the list does not show (roles one cannot read) stay choosable.
  const roleData = roleOptions && [...new Set([...roleOptions, ...roles])].sort();
  const rolesProps = {
    label: 'Roles',
    value: roles,
    onChange: setRoles,
    required: true,
    withAsterisk: false,
    error: errors.roles,
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <NavigationBlocker when={edited && !busy} />
      <Stack gap="sm">
        <TextInput
          label="Name"
          description={editing ? undefined : `It acts as the user bot-${name.trim() || '<name>'}`}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          disabled={editing !== undefined}
          required
          withAsterisk={false}
          error={errors.name}
          autoComplete="off"
          data-autofocus={editing ? undefined : true}
        />
        {roleData ? (
          <MultiSelect
            {...rolesProps}
            placeholder={roles.length === 0 ? 'Choose roles' : undefined}
            data={roleData}
            searchable
            nothingFoundMessage="No such role"
          />
        ) : (
          <TagsInput {...rolesProps} description="Type a role name and press Enter" />
        )}
        <TagsInput
          label="Logins"
          description="The server logins its roles' {{internal.logins}} give it; press Enter after each"
          value={logins}
          onChange={setLogins}
          error={errors.logins}
          clearable
        />
        {!editing && (
          <>
            <TextInput
              label="Join token valid for"
              description="The first copy joins with the token once within this time (at most 168h)"
              value={ttl}
              onChange={(e) => setTtl(e.currentTarget.value)}
              error={errors.token_ttl}
              autoComplete="off"
              list={ttlListId}
            />
            <datalist id={ttlListId}>
              {botTokenTtlSuggestions.map((suggestion) => (
                <option key={suggestion} value={suggestion} />
              ))}
            </datalist>
          </>
        )}
        {serverError && <FailureAlert title="The server refused" message={serverError} />}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" loading={busy}>
            {editing ? 'Save' : 'Create'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
