import {
  botTokenTtlSuggestions,
  createBotRequestSchema,
  type BotJson,
  type BotOidcRuleJson,
  type CreateBotRequest,
} from '@postern/contracts';
import {
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
import { CiRuleFields, ciRuleInput, ciRuleRequest, emptyCiRule } from './CiRuleFields';
import { DialogActions } from '../../components/DialogActions';

/**
 * What the form asks for: a new bot (`oidc` never null), or an edit, whose `oidc` is a new CI
 * rule, null to take the bot's rule away, or absent to leave it.
 */
export type BotFormRequest = Omit<CreateBotRequest, 'oidc'> & { oidc?: BotOidcRuleJson | null };

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
  onSubmit: (request: BotFormRequest, target: BotDialogTarget) => Promise<void>;
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
export type FieldErrors = Partial<Record<Field, string>>;

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
    joinWith: (editing?.oidc ? 'ci' : 'token') as 'token' | 'ci',
    ci: editing?.oidc ? ciRuleInput(editing.oidc) : emptyCiRule(defaultAudience),
  }));
  const [name, setName] = useState(initial.name);
  const [roles, setRoles] = useState<string[]>(initial.roles);
  const [logins, setLogins] = useState<string[]>(initial.logins);
  const [ttl, setTtl] = useState(initial.ttl);
  const [joinWith, setJoinWith] = useState(initial.joinWith);
  const [ci, setCi] = useState(initial.ci);
  const values = { name, roles, logins, ttl, joinWith, ci };
  const edited = JSON.stringify(values) !== JSON.stringify(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [serverError, setServerError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const ttlListId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const rule = ciRuleRequest(ci);
    const join = joinWith === 'ci' ? { oidc: rule.oidc } : editing ? {} : { token_ttl: ttl.trim() };
    const request: CreateBotRequest = { name: name.trim(), roles, logins, ...join };
    const found = checkBotForm(request);
    if (joinWith === 'ci' && rule.claimsError) found.claims = rule.claimsError;
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setServerError(undefined);
    try {
      await onSubmit(editing ? ruleChange(request) : request, target);
    } catch (err) {
      setServerError(messageOf(err));
      setBusy(false);
    }
  };

  /**
   * An edit sends the CI rule only when it changed (setting one asks for more rights than
   * changing logins), and null when the bot goes back to tokens only.
   */
  const ruleChange = ({ oidc, ...rest }: CreateBotRequest): BotFormRequest => {
    if (joinWith === 'token') return initial.joinWith === 'ci' ? { ...rest, oidc: null } : rest;
    const unchanged =
      initial.joinWith === 'ci' && JSON.stringify(ci) === JSON.stringify(initial.ci);
    return unchanged ? rest : { ...rest, oidc };
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
        {joinWith === 'ci' && <CiRuleFields rule={ci} onChange={setCi} errors={errors} />}
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
        <DialogActions
          refusal={serverError}
          busy={busy}
          onCancel={onClose}
          label={editing ? 'Save' : 'Create'}
        />
      </Stack>
    </form>
  );
}
