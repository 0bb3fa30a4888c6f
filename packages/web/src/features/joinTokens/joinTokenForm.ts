import {
  createJoinTokenRequestSchema,
  internalResourceIdLabel,
  joinTokenRoles,
  labelNamePattern,
  type CreateJoinTokenRequest,
  type JoinTokenRole,
  type joinTokenTtlSuggestions,
} from '@postern/contracts';

/**
 * What Create Join Token offers: every role an agent joins as. Trusted_cluster is left out: a
 * leaf cluster's token is made on Trusted Clusters, with the resource to paste on the leaf.
 */
export const creatableRoles = joinTokenRoles.filter(
  (role): role is Exclude<JoinTokenRole, 'Trusted_cluster'> => role !== 'Trusted_cluster',
);

export const defaultTtl: (typeof joinTokenTtlSuggestions)[number] = '30m';

/** `15m` → "15 minutes", `1h` → "1 hour", `168h` → "7 days". */
export function ttlLabel(ttl: string): string {
  const match = /^(\d+)([mh])$/.exec(ttl);
  if (!match) return ttl;
  const count = Number(match[1]);
  const [amount, unit] =
    match[2] === 'h' && count >= 48 && count % 24 === 0
      ? [count / 24, 'day']
      : [count, match[2] === 'h' ? 'hour' : 'minute'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/** The form as typed: labels are `name=value` lines. */
export interface JoinTokenFormInput {
  roles: string[];
  labels: string[];
  ttl: string;
}

export const emptyJoinTokenForm = (): JoinTokenFormInput => ({
  roles: ['Node'],
  labels: [],
  ttl: defaultTtl,
});

export type JoinTokenFormErrors = Partial<Record<'roles' | 'labels' | 'ttl', string>>;

/** `name=value` lines to labels, or why a line is not one (a name is required, a value not). */
export function parseLabelLines(lines: readonly string[]): {
  labels: Record<string, string>;
  error?: string;
} {
  const labels: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf('=');
    const name = at < 0 ? line.trim() : line.slice(0, at).trim();
    if (at < 0) return { labels, error: `'${line}' is not name=value, such as env=prod` };
    if (name === '') return { labels, error: `'${line}' has no label name: write name=value` };
    if (!labelNamePattern.test(name)) {
      return {
        labels,
        error: `'${name}' is not a label name: letters, digits and / . _ : * - (at most 128)`,
      };
    }
    if (name === internalResourceIdLabel) {
      return { labels, error: `${internalResourceIdLabel} is set by the server itself` };
    }
    if (name in labels) return { labels, error: `the label '${name}' is given twice` };
    labels[name] = line.slice(at + 1).trim();
  }
  return { labels };
}

/** The request the form makes, checked with the API's own rules; errors per field. */
export function joinTokenRequest(input: JoinTokenFormInput): {
  request: CreateJoinTokenRequest;
  errors: JoinTokenFormErrors;
} {
  const { labels, error } = parseLabelLines(input.labels);
  const request: CreateJoinTokenRequest = {
    roles: input.roles as JoinTokenRole[],
    join_method: 'token',
    suggested_agent_matcher_labels: labels,
    ttl: input.ttl,
  };
  const errors: JoinTokenFormErrors = {};
  const checked = createJoinTokenRequestSchema.safeParse(request);
  for (const issue of checked.success ? [] : checked.error.issues) {
    const field = issue.path[0] === 'roles' ? 'roles' : issue.path[0] === 'ttl' ? 'ttl' : 'labels';
    errors[field] ??= issue.message;
  }
  if (error) errors.labels = error;
  if (input.ttl === '') errors.ttl = 'choose how long the token lasts';
  return { request, errors };
}

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/**
 * When a token stops working, from now: "in 25 minutes", "in 5 hours", "in 7 days"; whole units,
 * rounded down, so it never promises more time than is left.
 */
export function expiresText(expiry: Date, now: number): string {
  const left = expiry.getTime() - now;
  if (left <= 0) return 'expired';
  if (left < minute) return 'in less than a minute';
  if (left >= 2 * day) return relative.format(Math.floor(left / day), 'day');
  if (left >= 2 * hour) return relative.format(Math.floor(left / hour), 'hour');
  return relative.format(Math.floor(left / minute), 'minute');
}
