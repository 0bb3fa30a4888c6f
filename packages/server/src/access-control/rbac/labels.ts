import type { LabelSelector } from '@postern/contracts';
import { compileLabelExpression, type BoundLabelExpression } from './label-expression.js';
import { expandTemplate, type UserTraits } from './templates.js';

/**
 * Label selectors. A value is `*` (any value, but the label must exist), an anchored regex
 * `^…$`, a glob with `*` wildcards (`prod-*`) or a literal. A selector matches when EVERY key
 * matches; the key `*` (whose only value is `*`) matches any resource, labelled or not. An empty
 * selector matches nothing. Values may be trait templates, expanded before compiling; a key whose
 * values all expand to nothing can never match.
 *
 * A role may add a label expression for the kind (`node_labels_expression`, label-expression.ts),
 * combined with the map as the reference does: an allow matches when the map (if set) AND the
 * expression (if set) match; a deny matches when the map OR the expression does. Neither set:
 * the selector is empty.
 */
export type ResourceLabels = Readonly<Record<string, string>>;

/** A compiled label value. */
type ValueMatcher = (value: string) => boolean;

export interface CompiledSelector {
  /** Neither a label map nor an expression: matches nothing. */
  readonly empty: boolean;
  readonly keys: ReadonlyArray<readonly [key: string, matchers: ValueMatcher[]]>;
  /** A value was not a valid regex: allow selectors then never match, deny selectors always do. */
  readonly invalid: boolean;
  /** The role's label expression for the kind, bound to the user's traits. */
  readonly expression?: BoundLabelExpression;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiles `*`, `^regex$`, globs and literals. Throws on a regex that does not compile. */
export function compileValue(pattern: string): ValueMatcher {
  if (pattern === '*') return () => true;
  if (pattern.startsWith('^') && pattern.endsWith('$')) {
    const re = new RegExp(pattern.replace(/\(\?P</g, '(?<'));
    return (value) => re.test(value);
  }
  if (pattern.includes('*')) {
    const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
    return (value) => re.test(value);
  }
  return (value) => value === pattern;
}

/** The problem with a label value as written, or undefined. Templates are checked elsewhere. */
export function labelValueProblem(pattern: string): string | undefined {
  if (pattern.includes('{{')) return undefined;
  try {
    compileValue(pattern);
    return undefined;
  } catch {
    return `invalid regular expression '${pattern}'`;
  }
}

export const asList = (values: string | readonly string[]): readonly string[] =>
  typeof values === 'string' ? [values] : values;

export function compileSelector(
  selector: LabelSelector | undefined,
  traits: UserTraits,
  expressionText?: string,
): CompiledSelector {
  const keys: Array<readonly [string, ValueMatcher[]]> = [];
  let invalid = false;
  for (const [key, values] of Object.entries(selector ?? {})) {
    const matchers: ValueMatcher[] = [];
    for (const value of asList(values)) {
      for (const expanded of expandTemplate(value, traits)) {
        try {
          matchers.push(compileValue(expanded));
        } catch {
          invalid = true;
        }
      }
    }
    keys.push([key, matchers]);
  }
  if (expressionText === undefined) return { empty: keys.length === 0, keys, invalid };
  const expression = compileLabelExpression(expressionText, traits);
  return { empty: false, keys, invalid, expression };
}

/** Whether the selector matches a resource's labels (see the module comment). */
export function selectorMatches(
  selector: CompiledSelector,
  labels: ResourceLabels,
  side: 'allow' | 'deny',
): boolean {
  if (selector.empty) return false;
  const { expression } = selector;
  const hasMap = selector.keys.length > 0;
  const mapMatches = () => {
    if (selector.invalid) return side === 'deny';
    return selector.keys.every(([key, matchers]) => {
      if (key === '*') return matchers.length > 0;
      const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
      return value !== undefined && matchers.some((match) => match(value));
    });
  };
  // An expression that cannot be evaluated never allows and always denies.
  const expressionMatches = () => {
    const verdict = (expression as BoundLabelExpression)(labels);
    return verdict === 'error' ? side === 'deny' : verdict;
  };
  if (side === 'allow') {
    return (!hasMap || mapMatches()) && (expression === undefined || expressionMatches());
  }
  return (hasMap && mapMatches()) || (expression !== undefined && expressionMatches());
}

/** Whether a plain value (a role name, a login) matches any of the patterns. */
export function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.some((pattern) => {
    try {
      return compileValue(pattern)(value);
    } catch {
      return false;
    }
  });
}
