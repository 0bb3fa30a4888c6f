import {
  installAppQuerySchema,
  installDatabaseQuerySchema,
  installDesktopQuerySchema,
  kubeClusterNameSchema,
  labelNamePattern,
} from '@postern/contracts';
import type { z } from 'zod';
import type { EnrollKindId } from './enrollKinds';

/** What the form holds, as typed. */
export interface EnrollInput {
  name: string;
  uri: string;
  /** `k=v,k2=v2`: labels for a server. */
  labels: string;
  /** The kubeconfig's path on the agent host. */
  kubeconfig: string;
}

export const emptyEnrollInput: EnrollInput = { name: '', uri: '', labels: '', kubeconfig: '' };

export type EnrollInputErrors = Partial<Record<keyof EnrollInput, string>>;

/**
 * The install links' own rules (contracts/install-links.ts): what the form lets through is a link
 * the server serves a working script for.
 */
const linkSchemas: Partial<Record<EnrollKindId, z.ZodType<{ name: string; uri: string }>>> = {
  app: installAppQuerySchema,
  database: installDatabaseQuerySchema,
  desktop: installDesktopQuerySchema,
};

/** `env=prod, team=web` → `{env: 'prod', team: 'web'}`, or why not. */
export function parseLabels(text: string): Record<string, string> | string {
  const labels: Record<string, string> = {};
  for (const pair of text.split(',').map((each) => each.trim())) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = at < 0 ? pair : pair.slice(0, at).trim();
    const value = at < 0 ? '' : pair.slice(at + 1).trim();
    if (at < 0 || value === '') return `"${pair}": write labels as name=value`;
    if (!labelNamePattern.test(name)) return `"${name}" is not a label name`;
    labels[name] = value;
  }
  return labels;
}

/** The form's problems, field by field; empty when the command can be written. */
export function checkEnrollInput(kind: EnrollKindId, input: EnrollInput): EnrollInputErrors {
  const errors: EnrollInputErrors = {};
  if (kind === 'server' || kind === 'openssh') {
    const labels = parseLabels(input.labels);
    if (typeof labels === 'string') errors.labels = labels;
    return errors;
  }
  if (kind === 'kubernetes') {
    const name = kubeClusterNameSchema.safeParse(input.name.trim());
    if (!name.success) errors.name = name.error.issues[0]?.message;
    if (input.kubeconfig.trim() === '') errors.kubeconfig = 'name the kubeconfig on the agent host';
    return errors;
  }
  const link = linkSchemas[kind]!.safeParse({ name: input.name.trim(), uri: input.uri.trim() });
  for (const issue of link.success ? [] : link.error.issues) {
    const field = issue.path[0] === 'name' ? 'name' : 'uri';
    errors[field] ??= issue.message;
  }
  return errors;
}

export const hasErrors = (errors: EnrollInputErrors) => Object.keys(errors).length > 0;
