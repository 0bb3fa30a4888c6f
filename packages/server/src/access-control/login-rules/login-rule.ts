import { z } from 'zod';
import {
  checkExpression,
  LabelExpressionError,
  typeNames,
} from '../rbac/label-expression-parse.js';
import type { Expr } from '../rbac/label-expression-parse.js';
import { TraitExpressionError, traitExpressionValues } from '../rbac/label-expression.js';
import type { TraitMap } from '../rbac/templates.js';

/**
 * Login rules (the reference's `login_rule` kind): how the traits an identity provider sent are
 * rewritten at each single sign-on, before they are stored on the user and read by roles'
 * templates. docs/sso.md, "Login rules".
 *
 * ```yaml
 * kind: login_rule
 * version: v1
 * metadata: {name: logins-from-email}
 * spec:
 *   priority: 0
 *   traits_map:
 *     logins: [external.logins, strings.lower(email.local(external.email))]
 *     groups: [external.groups]
 * ```
 *
 * Each rule's `traits_map` gives the whole set of traits out: a trait it does not name is
 * dropped. Each expression reads the traits in (`external.NAME`), and a trait out is the union of
 * its expressions' values. Rules run by priority, lowest first, ties by name, each reading what
 * the one before gave.
 */

const int32 = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(-2147483648)
  .max(2147483647);

// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;

/** A trait name: what `claims_to_traits` and user records name traits with. */
const traitName = z
  .string()
  .min(1)
  .max(256)
  .refine((name) => !controlCharacter.test(name), 'must not hold control characters');

export const loginRuleSchema = z
  .object({
    kind: z.literal('login_rule'),
    version: z.literal('v1', { error: "must be 'v1'" }),
    metadata: z
      .object({
        name: z
          .string()
          .regex(
            /^[a-z0-9][a-z0-9._-]{0,62}$/,
            'use 1-63 of a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
          ),
        description: z.string().max(1024).optional(),
        /** RFC 3339: past it the rule no longer applies (a rule being tried out). */
        expires: z.iso.datetime({ offset: true, error: 'expected an RFC 3339 time' }).optional(),
        /** The stored revision, as `get` shows it; ignored on save. */
        revision: z.string().optional(),
      })
      .strict(),
    spec: z
      .object({
        priority: int32.default(0),
        traits_map: z.record(traitName, z.array(z.string()).min(1, 'give at least one expression')),
        traits_expression: z.string().optional(),
      })
      .strict(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.spec.traits_expression !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['spec', 'traits_expression'],
        message: 'is not supported: write the rule as traits_map',
      });
    }
    for (const [trait, expressions] of Object.entries(rule.spec.traits_map)) {
      expressions.forEach((text, at) => {
        const problem = expressionProblem(text);
        if (problem) {
          ctx.addIssue({
            code: 'custom',
            path: ['spec', 'traits_map', trait, at],
            message: problem,
          });
        }
      });
    }
  });

export type LoginRule = z.output<typeof loginRuleSchema>;

/** Why an expression cannot be a trait's values, or undefined. */
function expressionProblem(text: string): string | undefined {
  try {
    const { type } = checkExpression(text, 'login');
    if (type === 'bool') {
      return `gives ${typeNames.bool}, not values: a trait's expression gives a value or a list of values (ifelse picks between them)`;
    }
    return undefined;
  } catch (error) {
    if (error instanceof LabelExpressionError) return error.message;
    throw error;
  }
}

/** A rule that could not be applied to someone's traits: names the rule, the trait and why. */
export class LoginRuleError extends Error {
  constructor(rule: string, trait: string, reason: string) {
    super(`login rule ${rule} could not set the trait ${trait}: ${reason}`);
    this.name = 'LoginRuleError';
  }
}

const isTraitValue = (v: string) => v.length > 0 && v.length <= 256 && !controlCharacter.test(v);

/** The rules in the order they apply: priority, then name; expired ones left out. */
export function activeRules(rules: readonly LoginRule[], now: Date): LoginRule[] {
  return rules
    .filter((rule) => !rule.metadata.expires || Date.parse(rule.metadata.expires) > now.getTime())
    .sort(
      (a, b) =>
        a.spec.priority - b.spec.priority ||
        (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0),
    );
}

/**
 * The traits after the rules. A trait with no values out is left out; values that are empty,
 * over 256 characters or hold control characters are dropped, as from a provider. Throws
 * LoginRuleError when an expression cannot be evaluated (`email.local` of a plain name).
 */
export function applyLoginRules(
  rules: readonly LoginRule[],
  traits: TraitMap,
  now: Date,
): TraitMap {
  let current: TraitMap = traits;
  for (const rule of activeRules(rules, now)) {
    const next: Record<string, string[]> = {};
    for (const [trait, expressions] of Object.entries(rule.spec.traits_map)) {
      const values = new Set<string>();
      for (const text of expressions) {
        for (const value of evaluate(rule, trait, text, current)) {
          if (isTraitValue(value)) values.add(value);
        }
      }
      if (values.size > 0) next[trait] = [...values];
    }
    current = next;
  }
  return current;
}

function evaluate(rule: LoginRule, trait: string, text: string, traits: TraitMap): string[] {
  let root: Expr;
  try {
    root = checkExpression(text, 'login').expr;
  } catch (error) {
    // Stored rules were checked on save; one that no longer parses is this release's change.
    throw new LoginRuleError(rule.metadata.name, trait, (error as Error).message);
  }
  try {
    return traitExpressionValues(root, traits);
  } catch (error) {
    if (error instanceof TraitExpressionError) {
      throw new LoginRuleError(rule.metadata.name, trait, error.message);
    }
    throw error;
  }
}
