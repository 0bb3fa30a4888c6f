import {
  participantModes,
  recordSessionModes,
  requestAccessStrategies,
  ruleVerbs,
  sessionKinds,
  type LabelSelector,
} from '@postern/contracts';
import { z } from 'zod';
import { durationHint, parseDuration } from './duration.js';
import { labelExpressionProblem } from './label-expression.js';
import { labelValueProblem } from './labels.js';
import { templateProblem } from './templates.js';
import { parseWhere } from './where.js';

/**
 * The fields of a role's options, allow and deny, as the reference system writes them. Reference
 * fields for features Postern does not have (cloud identities, host users, …) are kept but not
 * enforced; every restriction is enforced (docs/rbac.md, "Role options"), and a value Postern cannot
 * enforce is refused. role.schema.ts assembles the resource and lists the fields Postern refuses.
 */

const nonEmpty = z.string().min(1, 'must not be empty');
const templated = nonEmpty.superRefine((value, ctx) => {
  const problem = templateProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const pattern = nonEmpty.superRefine((value, ctx) => {
  const problem = labelValueProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const templatedList = z.array(templated);
export const kept = z.unknown().optional();

/** Host user creation (docs/rbac.md "Host users"): OS group names, `*` (in deny) for all. */
const hostGroups = z.array(
  z
    .string()
    .regex(/^([a-z_][a-z0-9_-]{0,31}|\*)$/, 'must be an OS group name (a-z, 0-9, _ and -), or *'),
);
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;
/** Lines for `/etc/sudoers.d`, after the login: `ALL=(ALL) NOPASSWD: ALL`. */
const hostSudoers = z.array(
  z
    .string()
    .min(1, 'must not be empty')
    .max(1024)
    .refine((line) => !controlCharacter.test(line), 'must be one line, without control characters'),
);
const bool = z.boolean();
const duration = z.preprocess(
  (value) => (value === 0 ? '0' : value),
  z.string({ error: durationHint }).refine((v) => parseDuration(v) !== undefined, durationHint),
);
/** YAML `allow:` with nothing after it is null; read it as empty. */
export const orEmpty = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === null || value === undefined ? {} : value), schema);

const labelSelector = z.record(z.string(), z.unknown()).transform((map, ctx) => {
  for (const [key, value] of Object.entries(map)) {
    const values = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: 'expected a string or a list of strings',
      });
      continue;
    }
    if (key === '' || (key === '*' && (values.length !== 1 || values[0] !== '*'))) {
      const message = key === '' ? 'empty label key' : "the '*' key only takes the value '*'";
      ctx.addIssue({ code: 'custom', path: [key], message });
    }
    values.forEach((v: string, n) => {
      const problem = v === '' ? 'must not be empty' : (templateProblem(v) ?? labelValueProblem(v));
      if (problem)
        ctx.addIssue({
          code: 'custom',
          path: Array.isArray(value) ? [key, n] : [key],
          message: problem,
        });
    });
  }
  return map as LabelSelector;
});

const resourceKind = z
  .string()
  .regex(/^(\*|[a-z][a-z0-9_]*)$/, 'expected a resource kind such as user, role or session, or *');
/** `<kind>_labels_expression` (label-expression.ts): parsed here so errors name their line. */
const labelExpression = z
  .string({ error: 'expected a label expression (a string)' })
  .superRefine((text, ctx) => {
    const problem = labelExpressionProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const whereClause = z.string().superRefine((text, ctx) => {
  try {
    parseWhere(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `invalid where clause: ${(error as Error).message}` });
  }
});
export const ruleShape = {
  resources: z.array(resourceKind).min(1, 'name at least one resource kind'),
  verbs: z.array(z.enum(ruleVerbs)).min(1, 'name at least one verb'),
  where: whereClause.optional(),
};
export const joinSessionShape = {
  name: nonEmpty,
  roles: z.array(pattern),
  kinds: z.array(z.enum(sessionKinds)),
  modes: z.array(z.enum(participantModes)),
};
/**
 * Moderated sessions (reference `require_session_join`): a session of the owner's that a policy
 * covers waits until `count` participants matching `filter` have joined in one of `modes`.
 */
export const requireSessionJoinShape = {
  name: nonEmpty,
  /** A `where`-style predicate on the participant: `contains(user.roles, "auditor")`. */
  filter: whereClause.optional(),
  // Only sessions with a shared screen can be moderated; '*' means both, as in the reference.
  kinds: z.array(
    z.enum(['ssh', 'k8s', '*'], {
      error: 'expected ssh, k8s or *: only terminal sessions can be moderated',
    }),
  ),
  count: z.number().int().min(1).max(100),
  modes: z.array(z.enum(participantModes)).min(1),
  on_leave: z.enum(['terminate', 'pause']).optional(),
};
export const kubeResourceShape = {
  kind: nonEmpty,
  namespace: z.string().optional(),
  name: nonEmpty,
  verbs: z.array(nonEmpty).optional(),
};
/**
 * How many distinct reviewers approve or deny a requested role (reference `thresholds`); a role
 * without any asks one approval and is denied by one denial. Filters are refused (not enforced).
 */
export const thresholdShape = {
  name: z.string().optional(),
  approve: z.number().int().min(1).max(100).optional(),
  deny: z.number().int().min(1).max(100).optional(),
};
export const requestShape = {
  roles: z.array(pattern).optional(),
  search_as_roles: z.array(pattern).optional(),
  suggested_reviewers: z.array(templated).optional(),
  thresholds: z.array(z.strictObject(thresholdShape)).optional(),
  claims_to_roles: kept,
  annotations: kept,
  max_duration: duration.optional(),
  kubernetes_resources: kept,
  reason: kept,
};
export const reviewShape = {
  roles: z.array(pattern).optional(),
  preview_as_roles: kept,
  claims_to_roles: kept,
};

export const conditionsShape = {
  logins: templatedList.optional(),
  node_labels: labelSelector.optional(),
  app_labels: labelSelector.optional(),
  db_labels: labelSelector.optional(),
  db_names: templatedList.optional(),
  db_users: templatedList.optional(),
  kubernetes_labels: labelSelector.optional(),
  kubernetes_groups: templatedList.optional(),
  kubernetes_users: templatedList.optional(),
  kubernetes_resources: z.array(z.strictObject(kubeResourceShape)).optional(),
  windows_desktop_labels: labelSelector.optional(),
  // Label expressions: with the map of the same kind, allow needs both, deny either.
  node_labels_expression: labelExpression.optional(),
  app_labels_expression: labelExpression.optional(),
  db_labels_expression: labelExpression.optional(),
  kubernetes_labels_expression: labelExpression.optional(),
  windows_desktop_labels_expression: labelExpression.optional(),
  // Checked, like any expression, but kept like their label maps: there is nothing to select.
  db_service_labels_expression: labelExpression.optional(),
  group_labels_expression: labelExpression.optional(),
  windows_desktop_logins: templatedList.optional(),
  rules: z.array(z.strictObject(ruleShape)).optional(),
  join_sessions: z.array(z.strictObject(joinSessionShape)).optional(),
  require_session_join: z.array(z.strictObject(requireSessionJoinShape)).optional(),
  request: z.strictObject(requestShape).optional(),
  review_requests: z.strictObject(reviewShape).optional(),
  // Kept, not enforced: features Postern does not have, so there is nothing to grant or deny.
  aws_role_arns: kept,
  azure_identities: kept,
  gcp_service_accounts: kept,
  db_roles: kept,
  db_service_labels: kept,
  host_groups: hostGroups.optional(),
  host_sudoers: hostSudoers.optional(),
  desktop_groups: kept,
  group_labels: kept,
  impersonate: kept,
  github_permissions: kept,
  account_assignments: kept,
  spiffe: kept,
};

const modeSchema = z.enum(recordSessionModes);
export const recordSessionShape = {
  default: modeSchema.optional(),
  ssh: modeSchema.optional(),
  /** Postern's own: Kubernetes exec and attach sessions (the reference uses `default`). */
  k8s: modeSchema.optional(),
  desktop: bool.optional(),
};
/** An extension added to the SSH user certificates a user is issued (reference `cert_extensions`). */
export const certExtensionShape = {
  type: z.literal('ssh', { error: "only type 'ssh' is supported (x509 extensions are not)" }),
  mode: z.literal('extension', {
    error: "only mode 'extension' is supported (critical options are not)",
  }),
  name: nonEmpty
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .refine(
      (name) => !name.startsWith('permit-') && !name.endsWith('@postern.dev'),
      'Postern sets this extension itself from the other options',
    ),
  value: z.string(),
};
const limit = z
  .number({ error: 'expected a whole number (0 means no limit)' })
  .int('expected a whole number (0 means no limit)')
  .min(0, 'expected a whole number (0 means no limit)');
const enabled = z.strictObject({ enabled: bool.optional() }).optional();
export const optionsShape = {
  max_session_ttl: duration.optional(),
  client_idle_timeout: duration.optional(),
  require_session_mfa: z
    .boolean({ error: 'expected true or false (hardware-key modes are not supported)' })
    .optional(),
  record_session: z.strictObject(recordSessionShape).optional(),
  desktop_clipboard: bool.optional(),
  desktop_directory_sharing: bool.optional(),
  forward_agent: bool.optional(),
  // MySQL/MariaDB `LOAD DATA LOCAL`: the client may send the server a file of its own.
  mysql_load_data_local: bool.optional(),
  port_forwarding: bool.optional(),
  ssh_port_forwarding: z.strictObject({ local: enabled, remote: enabled }).optional(),
  request_access: z.enum(requestAccessStrategies).optional(),
  request_prompt: z.string().optional(),
  // Kept, not enforced: they only switch on features Postern does not have.
  cert_format: kept,
  enhanced_recording: kept,
  permit_x11_forwarding: kept,
  create_host_user: kept,
  /** Whether the node service makes the login's OS user on first use (docs/rbac.md "Host users"). */
  create_host_user_mode: z
    .enum(['off', 'keep', 'insecure-drop', 'drop'], {
      error: "must be off, keep or insecure-drop (drop is insecure-drop's older name)",
    })
    .optional(),
  create_host_user_default_shell: kept,
  create_desktop_user: kept,
  create_db_user: kept,
  create_db_user_mode: kept,
  idp: kept,
  mfa_verification_interval: kept,
  // Enforced restrictions (docs/rbac.md, "Role options").
  ssh_file_copy: bool.optional(),
  disconnect_expired_cert: bool.optional(),
  pin_source_ip: bool.optional(),
  max_connections: limit.optional(),
  max_sessions: limit.optional(),
  max_kubernetes_connections: limit.optional(),
  lock: z
    .enum(['best_effort', 'strict'], { error: "expected 'best_effort' or 'strict'" })
    .optional(),
  cert_extensions: z.array(z.strictObject(certExtensionShape)).optional(),
  device_trust_mode: z
    .literal('off', { error: "device trust is not supported: only 'off' is accepted" })
    .optional(),
};
