import { z } from 'zod';

/**
 * Roles (spec §6). A role is a YAML resource in the reference system's format: `kind: role`,
 * `version: v7` (v5 and v6 are accepted where they mean the same and are stored as v7). The server
 * validates and normalises the YAML; these are the shapes the console and the API share.
 */
export const roleVersions = ['v5', 'v6', 'v7'] as const;
export type RoleVersion = (typeof roleVersions)[number];
export const currentRoleVersion = 'v7' as const;

/** Present from the first start; the label below marks them in listings. */
export const presetRoleNames = ['access', 'editor', 'auditor'] as const;
export type PresetRoleName = (typeof presetRoleNames)[number];
export const presetRoleLabel = 'postern.internal/resource-type' as const;

/**
 * Rule verbs. list/read/create/update/delete are what the engine checks; `readnosecrets` is a read
 * that never returns secrets (holding `read` implies it); `use` is the integrations verb. The rest
 * are reference verbs kept so that pasted roles validate.
 */
export const ruleVerbs = [
  '*',
  'list',
  'read',
  'readnosecrets',
  'create',
  'update',
  'delete',
  'use',
  'rotate',
  'create_enroll_token',
  'enroll',
] as const;
export type RuleVerb = (typeof ruleVerbs)[number];

export const recordSessionModes = ['best_effort', 'strict', 'off'] as const;
export type RecordSessionMode = (typeof recordSessionModes)[number];

export const requestAccessStrategies = ['optional', 'reason', 'always'] as const;
export type RequestAccessStrategy = (typeof requestAccessStrategies)[number];

export const sessionKinds = ['ssh', 'k8s', 'db', 'app', 'desktop'] as const;
export type SessionKind = (typeof sessionKinds)[number];
export const participantModes = ['observer', 'moderator', 'peer'] as const;
export type ParticipantMode = (typeof participantModes)[number];

/** A label value: `*`, a literal, a glob (`prod-*`) or an anchored regex (`^db-[0-9]+$`). */
export type LabelValues = string | string[];
/** Matches when every key matches the resource's label; `'*': '*'` matches everything. */
export type LabelSelector = Record<string, LabelValues>;

export interface RoleRule {
  /** Resource kinds (`user`, `role`, `session`, …) or `*`. */
  resources: string[];
  verbs: RuleVerb[];
  /** A predicate such as `contains(session.participants, user.metadata.name)`. */
  where?: string;
}

export interface JoinSessionPolicy {
  name: string;
  roles: string[];
  kinds: SessionKind[];
  modes: ParticipantMode[];
}

export interface KubernetesResource {
  kind: string;
  namespace?: string;
  name: string;
  verbs?: string[];
}

export interface RoleConditions {
  logins?: string[];
  node_labels?: LabelSelector;
  app_labels?: LabelSelector;
  db_labels?: LabelSelector;
  db_names?: string[];
  db_users?: string[];
  kubernetes_labels?: LabelSelector;
  kubernetes_groups?: string[];
  kubernetes_users?: string[];
  kubernetes_resources?: KubernetesResource[];
  windows_desktop_labels?: LabelSelector;
  windows_desktop_logins?: string[];
  rules?: RoleRule[];
  join_sessions?: JoinSessionPolicy[];
  request?: { roles?: string[]; search_as_roles?: string[]; suggested_reviewers?: string[] };
  review_requests?: { roles?: string[] };
}

export interface RecordSessionOptions {
  default?: RecordSessionMode;
  ssh?: RecordSessionMode;
  desktop?: boolean;
}

export interface RoleOptions {
  /** Go-style durations as written: '8h', '30m', '1h30m', '30h0m0s'. */
  max_session_ttl?: string;
  /** A duration; '0s', '0' or 'never' mean no idle timeout. */
  client_idle_timeout?: string;
  require_session_mfa?: boolean;
  record_session?: RecordSessionOptions;
  desktop_clipboard?: boolean;
  desktop_directory_sharing?: boolean;
  forward_agent?: boolean;
  port_forwarding?: boolean;
  /** MySQL/MariaDB `LOAD DATA LOCAL` through the proxy; off unless a role allows it. */
  mysql_load_data_local?: boolean;
  request_access?: RequestAccessStrategy;
  request_prompt?: string;
}

export interface RoleMetadata {
  name: string;
  description?: string;
  labels?: Record<string, string>;
  /** Set by the server on every write; a pasted revision is checked against the stored one. */
  revision?: string;
}

/** A validated role, always in the v7 shape. Reference fields Postern keeps but does not enforce
 * (cert_format, aws_role_arns, …) may also be present; the server's schema lists them. */
export interface Role {
  kind: 'role';
  version: typeof currentRoleVersion;
  metadata: RoleMetadata;
  spec: { options: RoleOptions; allow: RoleConditions; deny: RoleConditions };
}

/** Spec §3 resource item, as the Roles screen lists it: `{id: 'role:NAME', kind, name, content}`. */
export const roleItemSchema = z.object({
  id: z.string(),
  kind: z.literal('role'),
  name: z.string(),
  description: z.string().optional(),
  /** The role as YAML. */
  content: z.string(),
});
export type RoleItem = z.infer<typeof roleItemSchema>;

export const roleItemId = (name: string) => `role:${name}`;

/** `POST/PUT /roles`: the YAML (JSON is YAML too). */
export const roleContentRequestSchema = z.object({
  content: z
    .string()
    .min(1)
    .max(256 * 1024),
});
export type RoleContentRequest = z.infer<typeof roleContentRequestSchema>;

/** One validation problem, placed at its 1-based line so the editor can mark it. */
export const roleValidationIssueSchema = z.object({
  path: z.string(),
  line: z.number().int().min(1),
  message: z.string(),
});
export type RoleValidationIssue = z.infer<typeof roleValidationIssueSchema>;

/** Reads the issues back out of the error message (`line N: path: message`, one per line). */
export function roleIssuesFromMessage(message: string): RoleValidationIssue[] {
  const issues: RoleValidationIssue[] = [];
  for (const text of message.split('\n')) {
    const m = /^line (\d+): (.*?): (.*)$/.exec(text.trim());
    if (m) issues.push({ line: Number(m[1]), path: m[2] ?? '', message: m[3] ?? '' });
  }
  return issues;
}
