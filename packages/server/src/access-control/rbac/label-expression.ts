import type { SafeRegExp } from './label-regexp.js';
import {
  parseLabelExpression,
  type Expr,
  type ParsedLabelExpression,
} from './label-expression-parse.js';
import type { TraitMap, UserTraits } from './templates.js';

export {
  labelExpressionFunctions,
  labelExpressionProblem,
  LabelExpressionError,
  maxExpressionDepth,
  maxExpressionLength,
  parseLabelExpression,
  type ParsedLabelExpression,
} from './label-expression-parse.js';

/**
 * Label expressions (`node_labels_expression` and the other kinds'): the reference's predicate
 * language over a resource's labels and the user's traits, e.g.
 * `labels["env"] == "prod" && contains(user.spec.traits["team"], labels.team)`.
 *
 * A text is parsed once (tokens, then a recursive-descent parser, then a type check) into a
 * typed tree, and cached by text; a role's expression is bound to the user's traits when the role
 * is expanded and evaluated per resource. Values are strings (a label, a literal: absent when the
 * label is missing) or sets of strings (a trait, `set(…)`, `labels_matching(…)`). docs/rbac.md,
 * "Label expressions", lists the functions and the rules below:
 *
 * - a missing label or trait is absent, not an error: `==`, `contains`, `regexp.match`, `hasPrefix`
 *   … are false on it (and `!=` true), `contains_all` is false on an empty list;
 * - patterns (`regexp.*`, `labels_matching`) are string literals, compiled at parse time by the
 *   linear-time engine of label-regexp.ts;
 * - an evaluation that fails (`email.local` of something that is not an address) neither allows
 *   nor lifts a deny: the caller reads it as "no" on allow and "yes" on deny.
 */

/** Evaluation that cannot give an answer (see the module comment). */
class EvaluationFailure extends Error {}

/** A login rule's expression that could not be evaluated for these traits (its reason). */
export class TraitExpressionError extends Error {}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** Labels of a resource, as label selectors read them. */
type Labels = Readonly<Record<string, string>>;

/**
 * The traits `user.spec.traits` reads: the user's own, with the identity provider's of the same
 * name in their place (as `external.NAME` reads them, and as RoleSet's `where` user has them).
 */
export function mergedTraits(user: UserTraits): TraitMap {
  return { ...user.traits, ...user.externalTraits };
}

interface Scope {
  labels: Labels;
  traits: TraitMap;
}

const has = (list: readonly string[], value: string) => list.includes(value);

function values(expr: Expr, scope: Scope): readonly string[] {
  switch (expr.e) {
    case 'str':
      return [expr.value];
    case 'label':
      return Object.hasOwn(scope.labels, expr.key) ? [scope.labels[expr.key] as string] : [];
    case 'trait':
      return Object.hasOwn(scope.traits, expr.name) ? (scope.traits[expr.name] ?? []) : [];
    case 'call':
      return callValues(expr, scope);
    default:
      throw new EvaluationFailure('not a value');
  }
}

function callValues(expr: Extract<Expr, { e: 'call' }>, scope: Scope): readonly string[] {
  const arg = (n: number) => values(expr.args[n] as Expr, scope);
  switch (expr.fn) {
    case 'email.local':
      return arg(0).map((value) => {
        const at = value.lastIndexOf('@');
        if (at <= 0 || at === value.length - 1) {
          throw new EvaluationFailure(`'${value}' is not an email address`);
        }
        return value.slice(0, at);
      });
    case 'strings.upper':
      return arg(0).map((value) => value.toUpperCase());
    case 'strings.lower':
      return arg(0).map((value) => value.toLowerCase());
    case 'regexp.replace': {
      const pattern = expr.pattern as SafeRegExp;
      // A value the pattern does not match is dropped, as in role templates.
      return arg(0)
        .filter((value) => pattern.test(value))
        .map((value) => pattern.replaceAll(value, expr.replacement ?? ''))
        .filter((value) => value !== '');
    }
    case 'labels_matching': {
      const pattern = expr.pattern as SafeRegExp;
      return Object.keys(scope.labels)
        .filter((key) => pattern.test(key))
        .map((key) => scope.labels[key] as string);
    }
    case 'set':
    case 'union': // the login scope's name for set
      return [...new Set(expr.args.flatMap((_, n) => arg(n)))];
    case 'ifelse':
      return truth(expr.args[0] as Expr, scope) ? arg(1) : arg(2);
    default:
      throw new EvaluationFailure(`${expr.fn} is not a value`);
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((value) => right.has(value));
}

function truth(expr: Expr, scope: Scope): boolean {
  switch (expr.e) {
    case 'bool':
      return expr.value;
    case 'not':
      return !truth(expr.operand, scope);
    case 'and':
      return expr.items.every((item) => truth(item, scope));
    case 'or':
      return expr.items.some((item) => truth(item, scope));
    case 'compare': {
      const same = sameSet(values(expr.left, scope), values(expr.right, scope));
      return expr.op === '==' ? same : !same;
    }
    case 'call':
      return callTruth(expr, scope);
    default:
      throw new EvaluationFailure('not a condition');
  }
}

function callTruth(expr: Extract<Expr, { e: 'call' }>, scope: Scope): boolean {
  const arg = (n: number) => values(expr.args[n] as Expr, scope);
  switch (expr.fn) {
    case 'contains': {
      const item = arg(1);
      return item.length === 1 && has(arg(0), item[0] as string);
    }
    case 'contains_any': {
      const list = arg(0);
      return arg(1).some((value) => has(list, value));
    }
    case 'contains_all': {
      const list = arg(0);
      const items = arg(1);
      return items.length > 0 && items.every((value) => has(list, value));
    }
    case 'hasPrefix':
    case 'hasSuffix': {
      const ends = arg(1);
      const test =
        expr.fn === 'hasPrefix'
          ? (value: string, end: string) => value.startsWith(end)
          : (value: string, end: string) => value.endsWith(end);
      return arg(0).some((value) => ends.some((end) => test(value, end)));
    }
    case 'regexp.match': {
      const pattern = expr.pattern as SafeRegExp;
      return arg(0).some((value) => pattern.test(value));
    }
    case 'ifelse':
      return truth(expr.args[truth(expr.args[0] as Expr, scope) ? 1 : 2] as Expr, scope);
    default:
      throw new EvaluationFailure(`${expr.fn} is not a condition`);
  }
}

/**
 * The values of a value expression of the login scope (`checkExpression(text, 'login')`) over the
 * traits an identity provider sent: a string is one value, an absent trait none.
 */
export function traitExpressionValues(root: Expr, traits: TraitMap): string[] {
  try {
    return [...values(root, { labels: {}, traits })];
  } catch (error) {
    if (error instanceof EvaluationFailure) throw new TraitExpressionError(error.message);
    throw error;
  }
}

/**
 * A role's expression for one user: true or false for a resource's labels, or 'error' when it
 * cannot be evaluated (see the module comment; the caller decides what that means).
 */
export type BoundLabelExpression = (labels: Labels) => boolean | 'error';

export function bindLabelExpression(
  parsed: ParsedLabelExpression,
  traits: TraitMap,
): BoundLabelExpression {
  return (labels) => {
    try {
      return truth(parsed.root, { labels, traits });
    } catch (error) {
      if (error instanceof EvaluationFailure) return 'error';
      throw error;
    }
  };
}

/** Parses (from the cache) and binds; an expression that does not parse always gives 'error'. */
export function compileLabelExpression(text: string, user: UserTraits): BoundLabelExpression {
  let parsed: ParsedLabelExpression;
  try {
    parsed = parseLabelExpression(text);
  } catch {
    return () => 'error';
  }
  return bindLabelExpression(parsed, mergedTraits(user));
}
