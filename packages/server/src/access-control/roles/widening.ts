import type { LabelSelector } from '@postern/contracts';
import { isDeepStrictEqual } from 'node:util';
import { mergeOptions, type EffectiveOptions } from '../rbac/options.js';
import type { Role, RoleConditions } from '../rbac/role.schema.js';

/**
 * Whether a new version of a role grants anything the old one does not: the check that keeps an
 * editor from widening a role they hold. It compares the two versions field by field, so it is
 * sound whatever the holder's other roles are: access is the union of the roles' allows minus the
 * union of their denies, so a role that allows no more and denies no less can only narrow it.
 * It judges the role's text, not what it grants in effect, and so refuses a few changes that
 * would widen nothing (adding a login another role of the editor grants already).
 *
 * Returns one reason per widening, readable by the editor; none means the change narrows or
 * keeps the role. A role that does not exist yet (`old` undefined) is an empty one.
 */
export function roleWidenings(old: Role | undefined, proposed: Role): string[] {
  const before = old?.spec ?? { allow: {}, deny: {}, options: {} };
  const after = proposed.spec;
  return [
    ...conditionWidenings(before.allow, after.allow, 'allow'),
    ...conditionWidenings(before.deny, after.deny, 'deny'),
    ...optionWidenings(mergeOptions([before.options]), mergeOptions([after.options])),
  ];
}

type Field = keyof RoleConditions;
type Rule = NonNullable<RoleConditions['rules']>[number];

const listFields: readonly Field[] = [
  'logins',
  'db_names',
  'db_users',
  'kubernetes_groups',
  'kubernetes_users',
  'windows_desktop_logins',
];
/**
 * Each kind's label map, its expression, and the fields of principals (and rules) a deny of the
 * kind refuses everywhere when it selects nothing.
 */
const labelKinds: ReadonlyArray<{
  labels: Field;
  expression: Field;
  principals: readonly Field[];
}> = [
  { labels: 'node_labels', expression: 'node_labels_expression', principals: ['logins'] },
  { labels: 'app_labels', expression: 'app_labels_expression', principals: [] },
  {
    labels: 'db_labels',
    expression: 'db_labels_expression',
    principals: ['db_names', 'db_users'],
  },
  {
    labels: 'kubernetes_labels',
    expression: 'kubernetes_labels_expression',
    principals: ['kubernetes_groups', 'kubernetes_users', 'kubernetes_resources'],
  },
  {
    labels: 'windows_desktop_labels',
    expression: 'windows_desktop_labels_expression',
    principals: ['windows_desktop_logins'],
  },
];
const selectorFields = new Set(labelKinds.flatMap((k) => [k.labels, k.expression]));

function conditionWidenings(
  before: RoleConditions,
  after: RoleConditions,
  side: 'allow' | 'deny',
): string[] {
  // On the allow side the new version must be covered by the old; on the deny side the old
  // version must be covered by the new (a deny removed or narrowed is access given).
  const [wide, narrow] = side === 'allow' ? [before, after] : [after, before];
  const verb = side === 'allow' ? 'allows' : 'no longer denies';
  const reasons: string[] = [];
  const fields = new Set([...Object.keys(before), ...Object.keys(after)] as Field[]);
  for (const field of fields) {
    const at = `${side}.${field}`;
    if (listFields.includes(field)) {
      const wider = uncovered(wide[field] as string[] | undefined, narrow[field] as string[]);
      if (wider.length > 0) reasons.push(`${at} ${verb} ${wider.join(', ')}`);
    } else if (selectorFields.has(field)) {
      continue; // judged per kind below, the map with its expression
    } else if (field === 'rules') {
      const wider = uncoveredRules(wide.rules ?? [], narrow.rules ?? []);
      if (wider.length > 0) reasons.push(`${at} ${verb} ${wider.join(', ')}`);
    } else if (!isEmpty(narrow[field]) && !isDeepStrictEqual(narrow[field], wide[field])) {
      // Fields without an order of their own (join_sessions, request, …) may only stay.
      reasons.push(`${at} changed`);
    }
  }
  for (const kind of labelKinds) {
    if (![kind.labels, kind.expression].some((f) => f in before || f in after)) continue;
    const pick = (c: RoleConditions): Selection => ({
      map: c[kind.labels] as LabelSelector | undefined,
      expression: c[kind.expression] as string | undefined,
    });
    const covered =
      side === 'allow'
        ? allowCovers(pick(wide), pick(narrow))
        : denyCovers(
            pick(wide),
            pick(narrow),
            kind.principals.some((f) => !isEmpty(narrow[f])),
          );
    if (!covered) {
      const which = [kind.labels, kind.expression].filter((f) => f in before || f in after);
      reasons.push(`${side}.${which.join(' and ')} ${verb} more labels`);
    }
  }
  return reasons;
}

/** What a role selects for one kind: its label map and its label expression. */
interface Selection {
  map: LabelSelector | undefined;
  expression: string | undefined;
}
const selectsNothing = (s: Selection) =>
  Object.keys(s.map ?? {}).length === 0 && s.expression === undefined;

/**
 * Allow selects what the map (if set) AND the expression (if set) match. `narrow` selects no more
 * than `wide` when each part `wide` has is kept: its map by a map it covers, its expression by the
 * very same text. Expressions are not compared by meaning: a changed or removed one is wider, and
 * a map that gives way to an expression is too; adding an expression to a map only narrows it.
 */
function allowCovers(wide: Selection, narrow: Selection): boolean {
  if (selectsNothing(narrow)) return true;
  if (selectsNothing(wide)) return false;
  if (Object.keys(wide.map ?? {}).length > 0) {
    if (Object.keys(narrow.map ?? {}).length === 0 || !selectorCovers(wide.map, narrow.map)) {
      return false;
    }
  }
  return wide.expression === undefined || narrow.expression === wide.expression;
}

/**
 * Deny refuses what the map OR the expression matches; a deny that selects nothing but names
 * principals (or Kubernetes rules) for the kind refuses them everywhere. `narrow` (the old deny)
 * must be inside `wide` (the new one): each of its parts kept, an everywhere kept everywhere.
 */
function denyCovers(wide: Selection, narrow: Selection, everywhere: boolean): boolean {
  if (selectsNothing(narrow)) return !everywhere || selectsNothing(wide);
  if (Object.keys(narrow.map ?? {}).length > 0 && !selectorCovers(wide.map, narrow.map)) {
    return false;
  }
  return narrow.expression === undefined || wide.expression === narrow.expression;
}

/** The entries of `narrow` that `wide` does not have (`*` in `wide` has them all). */
function uncovered(wide: readonly string[] | undefined, narrow: readonly string[] = []): string[] {
  const patterns = wide ?? [];
  if (patterns.includes('*')) return [];
  return narrow.filter((value) => !patterns.includes(value));
}

/**
 * Whether every resource `narrow` matches is matched by `wide`. Selectors match when every key
 * matches (an empty one matches nothing), so `narrow` must name each key of `wide` with values
 * that `wide` has too; `'*': '*'` matches everything.
 */
function selectorCovers(wide: LabelSelector | undefined, narrow: LabelSelector | undefined) {
  const narrowKeys = Object.entries(narrow ?? {});
  if (narrowKeys.length === 0) return true;
  const wideKeys = Object.entries(wide ?? {});
  if (wideKeys.length === 0) return false;
  const narrowMap = new Map(narrowKeys.map(([key, values]) => [key, asList(values)]));
  return wideKeys.every(([key, values]) => {
    const allowed = asList(values);
    if (key === '*') return allowed.length > 0;
    const asked = narrowMap.get(key);
    return asked !== undefined && uncovered(allowed, asked).length === 0;
  });
}

const asList = (values: string | readonly string[]) =>
  typeof values === 'string' ? [values] : [...values];

/** `resource:verb` pairs of `narrow` that no rule of `wide` covers with the same or no `where`. */
function uncoveredRules(wide: readonly Rule[], narrow: readonly Rule[]): string[] {
  const missing: string[] = [];
  for (const rule of narrow) {
    for (const resource of rule.resources) {
      for (const verb of rule.verbs) {
        const covered = wide.some(
          (each) =>
            (each.resources.includes(resource) || each.resources.includes('*')) &&
            (each.verbs.includes(verb) || each.verbs.includes('*')) &&
            (each.where === undefined || each.where === rule.where),
        );
        if (!covered) missing.push(`${verb} on ${resource}`);
      }
    }
  }
  return missing;
}

const isEmpty = (value: unknown) =>
  value === undefined ||
  value === null ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && Object.keys(value).length === 0);

const recordOrder = ['off', 'best_effort', 'strict'];
const requestOrder = ['optional', 'reason', 'always'];

/**
 * Options merge so that the strictest role wins (`mergeOptions`), so a role's own effective
 * options are compared in that order. A role that did not exist is compared as an empty one
 * (the defaults).
 */
function optionWidenings(old: EffectiveOptions, next: EffectiveOptions): string[] {
  const reasons: string[] = [];
  if (next.maxSessionTtlMs > old.maxSessionTtlMs) reasons.push('options.max_session_ttl is longer');
  const idle = (ms: number) => (ms === 0 ? Infinity : ms);
  if (idle(next.clientIdleTimeoutMs) > idle(old.clientIdleTimeoutMs)) {
    reasons.push('options.client_idle_timeout is longer');
  }
  if (old.requireSessionMfa && !next.requireSessionMfa) {
    reasons.push('options.require_session_mfa is off');
  }
  for (const kind of ['default', 'ssh', 'k8s'] as const) {
    const from = recordOrder.indexOf(old.recordSession[kind]);
    if (recordOrder.indexOf(next.recordSession[kind]) < from) {
      reasons.push(`options.record_session.${kind} records less`);
    }
  }
  if (old.recordSession.desktop && !next.recordSession.desktop) {
    reasons.push('options.record_session.desktop is off');
  }
  const permits = [
    ['desktopClipboard', 'desktop_clipboard'],
    ['desktopDirectorySharing', 'desktop_directory_sharing'],
    ['forwardAgent', 'forward_agent'],
    ['portForwarding', 'port_forwarding'],
    ['mysqlLoadDataLocal', 'mysql_load_data_local'],
    ['sshFileCopy', 'ssh_file_copy'],
  ] as const;
  for (const [key, name] of permits) {
    if (next[key] && !old[key]) reasons.push(`options.${name} is on`);
  }
  if (requestOrder.indexOf(next.requestAccess) < requestOrder.indexOf(old.requestAccess)) {
    reasons.push('options.request_access is looser');
  }
  const limit = (n: number) => (n === 0 ? Infinity : n);
  const limits = [
    ['maxSessions', 'max_sessions'],
    ['maxConnections', 'max_connections'],
    ['maxKubernetesConnections', 'max_kubernetes_connections'],
  ] as const;
  for (const [key, name] of limits) {
    if (limit(next[key]) > limit(old[key])) reasons.push(`options.${name} is higher`);
  }
  const dropped = [
    ['disconnectExpiredCert', 'disconnect_expired_cert'],
    ['pinSourceIp', 'pin_source_ip'],
  ] as const;
  for (const [key, name] of dropped) {
    if (old[key] && !next[key]) reasons.push(`options.${name} is off`);
  }
  if (old.lockingMode === 'strict' && next.lockingMode !== 'strict') {
    reasons.push('options.lock is no longer strict');
  }
  return reasons;
}
