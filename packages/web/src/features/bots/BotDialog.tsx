import {
  botTokenTtlSuggestions,
  createBotRequestSchema,
  type BotJson,
  type CreateBotRequest,
} from '@postern/contracts';
import {
  Button,
  Group,
  Modal,
  MultiSelect,
  SegmentedControl,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { useId, useState, type FormEvent } from 'react';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import { FailureAlert } from '../../components/FailureAlert';

export type BotDialogTarget = { mode: 'create' } | { mode: 'edit'; bot: BotJson };

export interface BotDialogProps {
  /** Open while there is a target. */
  target: BotDialogTarget | null;
  /** Role names to choose from; undefined when the user cannot list roles (typed in then). */
  roleOptions: string[] | undefined;
  /** What a CI job's ID token is asked for by default: the proxy's host name. */
  defaultAudience: string;
  onClose: () => void;
  /** Creates or saves; rejects with the server's error, which the dialog shows. */
  onSubmit: (request: CreateBotRequest, target: BotDialogTarget) => Promise<void>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Create Bot (name, roles, logins, the join token's life) and Edit Bot (roles and logins). */
export function BotDialog(props: BotDialogProps) {
  const { target, onClose } = props;
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
          {...props}
          target={target}
        />
      )}
    </Modal>
  );
}

type Field = 'name' | 'roles' | 'logins' | 'token_ttl' | 'issuer' | 'audience' | 'claims';
type FieldErrors = Partial<Record<Field, string>>;

/** The form's values checked with the API's own rules, as messages per field. */
export function checkBotForm(request: CreateBotRequest): FieldErrors {
  const checked = createBotRequestSchema.safeParse(request);
  if (checked.success) return {};
  const errors: FieldErrors = {};
  for (const issue of checked.error.issues) {
    // The CI rule's fields are `oidc.issuer`, `oidc.claims.<name>`…: the form has one of each.
    const [first, second] = issue.path;
    const field = (first === 'oidc' ? second : first) as Field;
    errors[field] ??= issue.message;
  }
  return errors;
}

/** `name=value` lines to the rule's claims; a line without both is named in the error. */
export function parseClaims(lines: string[]): { claims: Record<string, string>; error?: string } {
  const claims: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at <= 0 || at === line.length - 1) {
      return { claims, error: `'${line}' is not name=value, such as repository=acme/deploy` };
    }
    claims[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { claims };
}

function BotForm({
  target,
  roleOptions,
  defaultAudience,
  onClose,
  onSubmit,
}: Omit<BotDialogProps, 'target'> & { target: BotDialogTarget }) {
  const editing = target.mode === 'edit' ? target.bot : undefined;
  const [initial] = useState(() => ({
    name: editing?.name ?? '',
    roles: editing?.roles ?? [],
    logins: editing?.logins ?? [],
    ttl: '1h',
    joinWith: 'token' as 'token' | 'ci',
    issuer: '',
    audience: defaultAudience,
    claims: [] as string[],
  }));
  const [name, setName] = useState(initial.name);
  const [roles, setRoles] = useState<string[]>(initial.roles);
  const [logins, setLogins] = useState<string[]>(initial.logins);
  const [ttl, setTtl] = useState(initial.ttl);
  const [joinWith, setJoinWith] = useState(initial.joinWith);
  const [issuer, setIssuer] = useState(initial.issuer);
  const [audience, setAudience] = useState(initial.audience);
  const [claimLines, setClaimLines] = useState(initial.claims);
  const values = { name, roles, logins, ttl, joinWith, issuer, audience, claims: claimLines };
  const edited = JSON.stringify(values) !== JSON.stringify(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const ttlListId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseClaims(claimLines);
    const join = editing
      ? {}
      : joinWith === 'token'
        ? { token_ttl: ttl.trim() }
        : { oidc: { issuer: issuer.trim(), audience: audience.trim(), claims: parsed.claims } };
    const request: CreateBotRequest = { name: name.trim(), roles, logins, ...join };
    const found = checkBotForm(request);
    if (joinWith === 'ci' && parsed.error) found.claims = parsed.error;
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
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Copies join with
            </Text>
            <SegmentedControl
              aria-label="Copies join with"
              value={joinWith}
              onChange={(value) => setJoinWith(value as 'token' | 'ci')}
              data={[
                { value: 'token', label: 'A join token' },
                { value: 'ci', label: "A CI job's ID token" },
              ]}
            />
          </Stack>
        )}
        {!editing && joinWith === 'ci' && (
          <>
            <TextInput
              label="Issuer"
              description="The CI system that signs the job's ID token (https)"
              placeholder="https://token.actions.githubusercontent.com"
              value={issuer}
              onChange={(e) => setIssuer(e.currentTarget.value)}
              error={errors.issuer}
              autoComplete="off"
            />
            <TextInput
              label="Audience"
              description="What the job asks its ID token for"
              value={audience}
              onChange={(e) => setAudience(e.currentTarget.value)}
              error={errors.audience}
              autoComplete="off"
            />
            <TagsInput
              label="Claims"
              description="name=value the token must carry, such as repository=acme/deploy; press Enter after each"
              value={claimLines}
              onChange={setClaimLines}
              error={errors.claims}
              clearable
            />
          </>
        )}
        {!editing && joinWith === 'token' && (
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
