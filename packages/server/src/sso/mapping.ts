/**
 * From what a provider says about a person (OIDC claims, SAML attributes, GitHub teams) to
 * Postern roles and traits. Rule values are globs: `*` is any run of characters, `?` one.
 */

export type Claims = Record<string, unknown>;

export function globMatch(pattern: string, value: string): boolean {
  const source = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's').test(value);
}

/** A claim's values as strings: a string, each string (or number) of a list, or a scalar. */
export function claimValues(claims: Claims, name: string): string[] {
  const value = claims[name];
  const list = Array.isArray(value) ? value : [value];
  return list
    .filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(String);
}

/** Every role of every rule that matches; sorted, without repeats. */
export function mapRoles<R extends { roles: string[] }>(
  rules: readonly R[],
  matches: (rule: R) => boolean,
): string[] {
  return [...new Set(rules.filter(matches).flatMap((rule) => rule.roles))].sort();
}

/** `claims_to_traits`: each claim's values appended to its trait; `logins` is always present. */
export function traitsFromClaims(
  rules: readonly { claim: string; trait: string }[],
  claims: Claims,
): { logins: string[]; [trait: string]: string[] } {
  const traits: { logins: string[]; [trait: string]: string[] } = { logins: [] };
  for (const rule of rules) {
    const values = claimValues(claims, rule.claim).filter(isTraitValue);
    traits[rule.trait] = [...new Set([...(traits[rule.trait] ?? []), ...values])];
  }
  return traits;
}

// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;
const isTraitValue = (v: string) => v.length > 0 && v.length <= 256 && !controlCharacter.test(v);
