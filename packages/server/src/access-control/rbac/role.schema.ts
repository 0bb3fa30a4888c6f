import { roleVersions, type Role as SharedRole } from '@postern/contracts';
import { z } from 'zod';
import {
  conditionsShape,
  joinSessionShape,
  requireSessionJoinShape,
  kept,
  kubeResourceShape,
  optionsShape,
  orEmpty,
  recordSessionShape,
  requestShape,
  reviewShape,
  thresholdShape,
  ruleShape,
} from './role.fields.js';

/**
 * The role resource as the reference system writes it (v5, v6 and v7), validated strictly: an
 * unknown field is an error, and fields whose absence would widen access (role expiry, rule
 * actions, …) are refused with a reason. The output is always v7.
 */

const roleName = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'at most 128 characters')
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._@:+-]*$/,
    'use letters, digits and . _ @ : + - (starting with a letter or digit)',
  );
const metadataShape = {
  name: roleName,
  description: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  revision: z.string().optional(),
  namespace: z.literal('default').optional(),
  id: kept,
};
const conditions = orEmpty(z.strictObject(conditionsShape));
const specShape = {
  options: orEmpty(z.strictObject(optionsShape)),
  allow: conditions,
  deny: conditions,
};
const topShape = {
  kind: z.literal('role'),
  version: z.enum(roleVersions, { error: 'unsupported role version: Postern reads v5, v6 and v7' }),
  metadata: z.strictObject(metadataShape),
  spec: orEmpty(z.strictObject(specShape)),
};

/** Version differences that change meaning are refused; the rest is normalised to v7. */
export const roleSchema = z
  .strictObject(topShape)
  .superRefine((role, ctx) => {
    if (role.version === 'v7') return;
    for (const side of ['allow', 'deny'] as const) {
      const resources = role.spec[side].kubernetes_resources;
      if (!resources) continue;
      const path = ['spec', side, 'kubernetes_resources'];
      if (role.version === 'v5' || side === 'allow') {
        const why =
          role.version === 'v5'
            ? 'is not part of role version v5'
            : 'restricts only pods in a v6 role, which v7 cannot say';
        ctx.addIssue({ code: 'custom', path, message: `${why}; write the role as version v7` });
      }
      resources.forEach((r, n) => {
        if (role.version === 'v6' && side === 'deny' && (r.kind !== 'pod' || r.verbs)) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, n],
            message: 'a v6 role only knows kind pod, without verbs',
          });
        }
      });
    }
  })
  .transform(({ metadata: { namespace: _ns, id: _id, ...metadata }, spec, version }) => {
    // A v6 deny on pods means every verb on them, which v7 writes out.
    if (version === 'v6') for (const r of spec.deny.kubernetes_resources ?? []) r.verbs = ['*'];
    return { kind: 'role' as const, version: 'v7' as const, metadata, spec };
  });

export type Role = z.output<typeof roleSchema>;
export type RoleConditions = Role['spec']['allow'];
export type RoleOptions = Role['spec']['options'];
// The shared contract describes a subset of the same shape.
export const toSharedRole = (role: Role): SharedRole => role;

/** Reference fields Postern refuses, with the reason shown instead of "unknown field". */
export const unsupportedFields: Readonly<Record<string, string>> = {
  cluster_labels: 'access to trusted clusters by label is not supported yet',
  cluster_labels_expression:
    'access to trusted clusters by label expression is not supported: trusted clusters are not supported yet',
  expires: 'roles that expire are not supported',
  actions: 'rule actions are not supported',
  where: 'filters on access requests are not supported yet',
  filter: 'threshold filters are not supported yet',
};

const keysOf = (shape: object) => Object.keys(shape);
/** The field names an object at this path may have, for "did you mean" hints. */
export function knownFieldsAt(path: readonly PropertyKey[]): string[] {
  const [a, b, c] = path.map(String);
  const depth = path.length;
  if (depth === 0) return keysOf(topShape);
  if (a === 'metadata') return depth === 1 ? keysOf(metadataShape) : [];
  if (a !== 'spec') return [];
  if (depth === 1) return keysOf(specShape);
  if (b === 'options') {
    if (depth === 2) return keysOf(optionsShape);
    return c === 'record_session' ? keysOf(recordSessionShape) : ['local', 'remote', 'enabled'];
  }
  if (depth === 2) return keysOf(conditionsShape);
  const nested: Record<string, object> = {
    rules: ruleShape,
    join_sessions: joinSessionShape,
    require_session_join: requireSessionJoinShape,
    kubernetes_resources: kubeResourceShape,
    request: requestShape,
    review_requests: reviewShape,
    thresholds: thresholdShape,
  };
  return c && nested[c] ? keysOf(nested[c]) : [];
}
