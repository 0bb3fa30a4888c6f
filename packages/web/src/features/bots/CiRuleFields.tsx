import type { BotOidcRuleJson } from '@postern/contracts';
import { TagsInput, TextInput } from '@mantine/core';

/** The CI rule as the form holds it: the claims as the `name=value` lines typed. */
export interface CiRuleInput {
  issuer: string;
  audience: string;
  claims: string[];
}

export const emptyCiRule = (audience: string): CiRuleInput => ({
  issuer: '',
  audience,
  claims: [],
});

/** A bot's rule as the form shows it. */
export const ciRuleInput = (rule: BotOidcRuleJson): CiRuleInput => ({
  issuer: rule.issuer,
  audience: rule.audience,
  claims: Object.entries(rule.claims).map(([name, value]) => `${name}=${value}`),
});

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

/** The rule the API takes, and what is wrong with the claims as typed, if anything. */
export function ciRuleRequest(input: CiRuleInput): { oidc: BotOidcRuleJson; claimsError?: string } {
  const { claims, error } = parseClaims(input.claims);
  const oidc = { issuer: input.issuer.trim(), audience: input.audience.trim(), claims };
  return error ? { oidc, claimsError: error } : { oidc };
}

interface Props {
  rule: CiRuleInput;
  onChange: (rule: CiRuleInput) => void;
  errors: { issuer?: string; audience?: string; claims?: string };
}

/**
 * Which CI jobs may join as the bot with their OpenID Connect ID token (docs/bots.md): the CI
 * system that signs it, the audience the job asks for, and claims it must carry.
 */
export function CiRuleFields({ rule, onChange, errors }: Props) {
  return (
    <>
      <TextInput
        label="Issuer"
        description="The CI system that signs the job's ID token (https)"
        placeholder="https://token.actions.githubusercontent.com"
        value={rule.issuer}
        onChange={(e) => onChange({ ...rule, issuer: e.currentTarget.value })}
        error={errors.issuer}
        autoComplete="off"
      />
      <TextInput
        label="Audience"
        description="What the job asks its ID token for"
        value={rule.audience}
        onChange={(e) => onChange({ ...rule, audience: e.currentTarget.value })}
        error={errors.audience}
        autoComplete="off"
      />
      <TagsInput
        label="Claims"
        description="name=value the token must carry, such as repository=acme/deploy; press Enter after each"
        value={rule.claims}
        onChange={(claims) => onChange({ ...rule, claims })}
        error={errors.claims}
        clearable
      />
    </>
  );
}
