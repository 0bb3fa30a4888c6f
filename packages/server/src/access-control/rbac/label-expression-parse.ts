import {
  compileRegExp,
  compileValuePattern,
  PatternError,
  type SafeRegExp,
} from './label-regexp.js';

/**
 * Reading a label expression (label-expression.ts says what the language means): tokens, a
 * recursive-descent parser into a syntax tree, then a type check into the typed tree that
 * evaluation walks, with the limits and the cache of parsed texts.
 */

export const maxExpressionLength = 4096;
export const maxExpressionDepth = 32;

export class LabelExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelExpressionError';
  }
}

// ---------------------------------------------------------------------------------------------
// Tokens

type TokenKind = 'id' | 'str' | 'op' | 'end';
interface Token {
  kind: TokenKind;
  value: string;
  /** Offset in the text, for messages. */
  at: number;
}

const operators = ['==', '!=', '&&', '||', '!', '(', ')', '[', ']', ',', '.'];
const stringEscapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };

const identifier = /[A-Za-z_]\w*/y;

function tokenize(text: string, where: (at: number) => string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    const two = text.slice(i, i + 2);
    if (operators.includes(two)) {
      tokens.push({ kind: 'op', value: two, at });
      i += 2;
    } else if (operators.includes(c)) {
      tokens.push({ kind: 'op', value: c, at });
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      identifier.lastIndex = i;
      const m = identifier.exec(text) as RegExpExecArray;
      tokens.push({ kind: 'id', value: m[0], at });
      i += m[0].length;
    } else if (c === '"') {
      // Go's quoted strings; an escape Go does not know (`\d`) is kept as written, for regexps.
      let value = '';
      i++;
      for (;;) {
        const d = text[i];
        if (d === undefined || d === '\n') {
          throw new LabelExpressionError(`unterminated string ${where(at)}`);
        }
        i++;
        if (d === '"') break;
        if (d === '\\') {
          const e = text[i++] ?? '';
          value += stringEscapes[e] ?? `\\${e}`;
        } else value += d;
      }
      tokens.push({ kind: 'str', value, at });
    } else if (c === '`') {
      const end = text.indexOf('`', i + 1);
      if (end < 0) throw new LabelExpressionError(`unterminated string ${where(at)}`);
      tokens.push({ kind: 'str', value: text.slice(i + 1, end), at });
      i = end + 1;
    } else {
      const hint = c === '&' ? " (did you mean '&&'?)" : c === '|' ? " (did you mean '||'?)" : '';
      const eq = c === '=' ? " (did you mean '=='?)" : '';
      throw new LabelExpressionError(`unexpected '${c}' ${where(at)}${hint}${eq}`);
    }
  }
  tokens.push({ kind: 'end', value: '', at: text.length });
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// Syntax: what was written, before names and types are resolved

type Syntax =
  | { s: 'str'; value: string; at: number }
  | { s: 'id'; name: string; at: number }
  | { s: 'member'; object: Syntax; name: string; at: number }
  | { s: 'index'; object: Syntax; key: Syntax; at: number }
  | { s: 'call'; callee: Syntax; args: Syntax[]; at: number }
  | { s: 'not'; operand: Syntax; at: number }
  | { s: 'compare'; op: '==' | '!='; left: Syntax; right: Syntax; at: number }
  | { s: 'and' | 'or'; items: Syntax[]; at: number };

function parseSyntax(text: string, where: (at: number) => string): Syntax {
  const tokens = tokenize(text, where);
  let i = 0;
  let depth = 0;
  const peek = () => tokens[i] as Token;
  const isOp = (value: string) => peek().kind === 'op' && peek().value === value;
  const describe = (t: Token) =>
    t.kind === 'end' ? 'end of expression' : t.kind === 'str' ? 'string' : `'${t.value}'`;
  const unexpected = (t: Token): never => {
    const what = describe(t);
    throw new LabelExpressionError(
      t.kind === 'end' ? `unexpected end of expression` : `unexpected ${what} ${where(t.at)}`,
    );
  };
  const expect = (value: string) => {
    if (!isOp(value)) {
      const t = peek();
      throw new LabelExpressionError(
        `expected '${value}' ${t.kind === 'end' ? 'at the end of the expression' : `but found ${describe(t)} ${where(t.at)}`}`,
      );
    }
    i++;
  };
  const nest = <T>(at: number, parse: () => T): T => {
    if (++depth > maxExpressionDepth) {
      throw new LabelExpressionError(
        `the expression is nested too deeply (more than ${maxExpressionDepth} levels) ${where(at)}`,
      );
    }
    const result = parse();
    depth--;
    return result;
  };

  const primary = (): Syntax => {
    const t = peek();
    if (t.kind === 'str') {
      i++;
      return { s: 'str', value: t.value, at: t.at };
    }
    if (t.kind === 'id') {
      i++;
      return { s: 'id', name: t.value, at: t.at };
    }
    if (isOp('(')) {
      i++;
      const inner = nest(t.at, or);
      expect(')');
      return inner;
    }
    return unexpected(t);
  };
  const postfix = (): Syntax => {
    let node = primary();
    for (;;) {
      const t = peek();
      if (isOp('.')) {
        i++;
        const name = peek();
        if (name.kind !== 'id') unexpected(name);
        i++;
        node = { s: 'member', object: node, name: name.value, at: node.at };
      } else if (isOp('[')) {
        i++;
        const key = nest(t.at, or);
        expect(']');
        node = { s: 'index', object: node, key, at: node.at };
      } else if (isOp('(')) {
        i++;
        const args: Syntax[] = [];
        nest(t.at, () => {
          if (!isOp(')')) {
            args.push(or());
            while (isOp(',')) {
              i++;
              args.push(or());
            }
          }
        });
        expect(')');
        node = { s: 'call', callee: node, args, at: node.at };
      } else return node;
    }
  };
  const unary = (): Syntax => {
    const t = peek();
    if (isOp('!')) {
      i++;
      return { s: 'not', operand: nest(t.at, unary), at: t.at };
    }
    return postfix();
  };
  const compare = (): Syntax => {
    const left = unary();
    const t = peek();
    if (isOp('==') || isOp('!=')) {
      i++;
      const right = unary();
      if (isOp('==') || isOp('!=')) unexpected(peek());
      return { s: 'compare', op: t.value as '==' | '!=', left, right, at: t.at };
    }
    return left;
  };
  const chain = (op: 'and' | 'or', token: string, next: () => Syntax) => (): Syntax => {
    const first = next();
    if (!isOp(token)) return first;
    const items = [first];
    while (isOp(token)) {
      i++;
      items.push(next());
    }
    return { s: op, items, at: first.at };
  };
  const and = chain('and', '&&', compare);
  const or: () => Syntax = chain('or', '||', and);

  if (peek().kind === 'end') throw new LabelExpressionError('the expression is empty');
  const root = or();
  if (peek().kind !== 'end') unexpected(peek());
  return root;
}

// ---------------------------------------------------------------------------------------------
// Typed tree

export type Type = 'bool' | 'string' | 'set';
export type Expr =
  | { e: 'bool'; value: boolean }
  | { e: 'str'; value: string }
  | { e: 'label'; key: string }
  | { e: 'trait'; name: string }
  | { e: 'not'; operand: Expr }
  | { e: 'and' | 'or'; items: Expr[] }
  | { e: 'compare'; op: '==' | '!='; left: Expr; right: Expr }
  | { e: 'call'; fn: string; args: Expr[]; pattern?: SafeRegExp; replacement?: string };

export interface Typed {
  expr: Expr;
  type: Type;
}

/** How a function is written and what it gives. `list` takes a string or a set. */
type Param = 'list' | 'item' | 'bool' | 'pattern' | 'regexp' | 'template' | 'any';
interface Signature {
  params: readonly Param[];
  /** Any number of `list` arguments (set). */
  variadic?: boolean;
  result: (args: Typed[]) => Type;
}

const boolean = () => 'bool' as const;
const sameAsFirst = (args: Typed[]) => (args[0]?.type === 'string' ? 'string' : 'set');
export const labelExpressionFunctions: Readonly<Record<string, Signature>> = {
  contains: { params: ['list', 'item'], result: boolean },
  contains_any: { params: ['list', 'list'], result: boolean },
  contains_all: { params: ['list', 'list'], result: boolean },
  hasPrefix: { params: ['list', 'list'], result: boolean },
  hasSuffix: { params: ['list', 'list'], result: boolean },
  'regexp.match': { params: ['list', 'pattern'], result: boolean },
  'regexp.replace': { params: ['list', 'regexp', 'template'], result: sameAsFirst },
  'email.local': { params: ['list'], result: sameAsFirst },
  'strings.upper': { params: ['list'], result: sameAsFirst },
  'strings.lower': { params: ['list'], result: sameAsFirst },
  labels_matching: { params: ['pattern'], result: () => 'set' },
  set: { params: [], variadic: true, result: () => 'set' },
  ifelse: {
    params: ['bool', 'any', 'any'],
    result: ([, a, b]) =>
      a?.type === 'bool' ? 'bool' : a?.type === 'string' && b?.type === 'string' ? 'string' : 'set',
  },
};

/**
 * Login rules read the identity provider's traits, not a resource: no labels, and `union` as the
 * reference's login rules spell `set`.
 */
const loginFunctions: Readonly<Record<string, Signature>> = {
  ...Object.fromEntries(
    Object.entries(labelExpressionFunctions).filter(([name]) => name !== 'labels_matching'),
  ),
  union: labelExpressionFunctions.set!,
};

/**
 * What an expression may read: a resource's labels and the user's traits (a role's label
 * expressions), or the traits an identity provider sent (a login rule's, `external.NAME`).
 */
export type ExpressionScope = 'resource' | 'login';

interface Checking {
  where: (at: number) => string;
  scope: ExpressionScope;
}

const functionsOf = (scope: ExpressionScope) =>
  scope === 'login' ? loginFunctions : labelExpressionFunctions;

export const typeNames: Record<Type, string> = {
  bool: 'a condition',
  string: 'a value',
  set: 'a list of values',
};

/** `a.b.c` as a dotted name, or undefined for anything else. */
function dotted(node: Syntax): string | undefined {
  if (node.s === 'id') return node.name;
  if (node.s === 'member') {
    const head = dotted(node.object);
    return head === undefined ? undefined : `${head}.${node.name}`;
  }
  return undefined;
}

function check(node: Syntax, c: Checking): Typed {
  const fail = (message: string, at = node.at): never => {
    throw new LabelExpressionError(`${message} ${c.where(at)}`);
  };
  /** The key of `x.key` or `x["key"]` whose object is `object` (a dotted name). */
  const keyOf = (n: Syntax, object: string): string | undefined => {
    if (n.s === 'member' && dotted(n.object) === object) return n.name;
    if (n.s === 'index' && dotted(n.object) === object) {
      if (n.key.s !== 'str') fail(`the key of ${object}[…] must be a quoted string`, n.key.at);
      return (n.key as { value: string }).value;
    }
    return undefined;
  };

  switch (node.s) {
    case 'str':
      return { expr: { e: 'str', value: node.value }, type: 'string' };
    case 'not': {
      const operand = check(node.operand, c);
      if (operand.type !== 'bool') fail(`'!' needs a condition, not ${typeNames[operand.type]}`);
      return { expr: { e: 'not', operand: operand.expr }, type: 'bool' };
    }
    case 'and':
    case 'or': {
      const items = node.items.map((item) => {
        const typed = check(item, c);
        if (typed.type !== 'bool') {
          fail(
            `'${node.s === 'and' ? '&&' : '||'}' joins conditions, not ${typeNames[typed.type]}`,
            item.at,
          );
        }
        return typed.expr;
      });
      return { expr: { e: node.s, items }, type: 'bool' };
    }
    case 'compare': {
      const left = check(node.left, c);
      const right = check(node.right, c);
      if (left.type === 'bool' || right.type === 'bool') {
        fail(`'${node.op}' compares values, not conditions`);
      }
      return {
        expr: { e: 'compare', op: node.op, left: left.expr, right: right.expr },
        type: 'bool',
      };
    }
    case 'call':
      return checkCall(node, c);
    default:
      return checkName(node, c, keyOf, fail);
  }
}

/** A name: a label or a trait (the resource scope), or an identity provider's trait (login). */
function checkName(
  node: Syntax,
  c: Checking,
  keyOf: (n: Syntax, object: string) => string | undefined,
  fail: (message: string) => never,
): Typed {
  const name = dotted(node);
  if (name === 'true' || name === 'false') {
    return { expr: { e: 'bool', value: name === 'true' }, type: 'bool' };
  }
  if (name !== undefined && functionsOf(c.scope)[name]) {
    fail(`${name} is a function: call it with (…)`);
  }
  if (c.scope === 'login') {
    const trait = keyOf(node, 'external');
    if (trait !== undefined) return { expr: { e: 'trait', name: trait }, type: 'set' };
    if (name === 'external')
      fail('external needs a trait name: external.email or external["email"]');
    return fail(`unknown name '${name ?? '…'}': use external.NAME, a string or a function`);
  }
  const label = keyOf(node, 'labels');
  if (label !== undefined) return { expr: { e: 'label', key: label }, type: 'string' };
  const trait = keyOf(node, 'user.spec.traits');
  if (trait !== undefined) return { expr: { e: 'trait', name: trait }, type: 'set' };
  if (name === 'labels') fail('labels needs a key: labels["env"] or labels.env');
  if (name?.startsWith('user')) {
    fail(`unknown field '${name}': only user.spec.traits["name"] can be read`);
  }
  return fail(
    `unknown name '${name ?? '…'}': use labels["key"], user.spec.traits["name"], a string or a function`,
  );
}

function checkCall(node: Extract<Syntax, { s: 'call' }>, c: Checking): Typed {
  const fail = (message: string, at = node.at): never => {
    throw new LabelExpressionError(`${message} ${c.where(at)}`);
  };
  const name = dotted(node.callee);
  const functions = functionsOf(c.scope);
  const signature = name === undefined ? undefined : functions[name];
  if (name === undefined || !signature) {
    return fail(
      `unknown function '${name ?? '…'}' (supported: ${Object.keys(functions).join(', ')})`,
    );
  }
  const { params } = signature;
  if (!signature.variadic && node.args.length !== params.length) {
    fail(
      `${name} takes ${params.length} argument${params.length === 1 ? '' : 's'}, not ${node.args.length}`,
    );
  }
  let pattern: SafeRegExp | undefined;
  let replacement: string | undefined;
  const args: Typed[] = node.args.map((arg, n) => {
    const param = signature.variadic ? 'list' : (params[n] as Param);
    if (param === 'pattern' || param === 'regexp' || param === 'template') {
      if (arg.s !== 'str') fail(`argument ${n + 1} of ${name} must be a quoted string`, arg.at);
      const text = (arg as { value: string }).value;
      if (param === 'template') replacement = text;
      else {
        try {
          pattern = param === 'pattern' ? compileValuePattern(text) : compileRegExp(text);
        } catch (error) {
          if (!(error instanceof PatternError)) throw error;
          fail(`invalid regular expression: ${error.message}`, arg.at);
        }
      }
      return { expr: { e: 'str', value: text }, type: 'string' };
    }
    const typed = check(arg, c);
    const ok =
      param === 'any' ||
      (param === 'bool' && typed.type === 'bool') ||
      (param === 'list' && typed.type !== 'bool') ||
      (param === 'item' && typed.type === 'string');
    if (!ok) {
      const wanted =
        param === 'item'
          ? `a single value (use contains_any or contains_all for a list)`
          : param === 'bool'
            ? 'a condition'
            : 'a value or a list of values';
      fail(`argument ${n + 1} of ${name} must be ${wanted}, not ${typeNames[typed.type]}`, arg.at);
    }
    return typed;
  });
  if (name === 'ifelse') {
    const [, a, b] = args;
    if ((a?.type === 'bool') !== (b?.type === 'bool')) {
      fail('both branches of ifelse must be conditions, or both values');
    }
  }
  const expr: Expr = { e: 'call', fn: name, args: args.map((a) => a.expr) };
  if (pattern) expr.pattern = pattern;
  if (replacement !== undefined) expr.replacement = replacement;
  return { expr, type: signature.result(args) };
}

// ---------------------------------------------------------------------------------------------
// Parsing, with its cache

/** A parsed expression: evaluate it with `bindLabelExpression`. */
export interface ParsedLabelExpression {
  readonly text: string;
  readonly root: Expr;
}

const cache = new Map<string, ParsedLabelExpression | LabelExpressionError>();
const cacheLimit = 512;

/** "at column 17" (or "at line 2, column 5 of the expression" in a text of several lines). */
function locator(text: string): (at: number) => string {
  const multiline = text.includes('\n');
  return (at) => {
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - (before.lastIndexOf('\n') + 1) + 1;
    return multiline
      ? `at line ${line}, column ${column} of the expression`
      : `at column ${column}`;
  };
}

/** Parses and type-checks an expression of a scope, whatever its type (not cached). */
export function checkExpression(text: string, scope: ExpressionScope): Typed {
  if (text.length > maxExpressionLength) {
    throw new LabelExpressionError(
      `the expression is longer than ${maxExpressionLength} characters`,
    );
  }
  const where = locator(text);
  return check(parseSyntax(text, where), { where, scope });
}

/** Parses and checks an expression; throws LabelExpressionError with a readable message. */
export function parseLabelExpression(text: string): ParsedLabelExpression {
  const cached = cache.get(text);
  if (cached instanceof LabelExpressionError) throw cached;
  if (cached) return cached;
  let result: ParsedLabelExpression | LabelExpressionError;
  try {
    const typed = checkExpression(text, 'resource');
    if (typed.type !== 'bool') {
      throw new LabelExpressionError(
        `the expression must be a condition (true or false), not ${typeNames[typed.type]}: compare it with == or use a function such as contains`,
      );
    }
    result = { text, root: typed.expr };
  } catch (error) {
    if (!(error instanceof LabelExpressionError)) throw error;
    result = error;
  }
  if (cache.size >= cacheLimit) cache.clear();
  if (text.length <= maxExpressionLength) cache.set(text, result);
  if (result instanceof LabelExpressionError) throw result;
  return result;
}

/** The problem with an expression as written, or undefined. */
export function labelExpressionProblem(text: string): string | undefined {
  try {
    parseLabelExpression(text);
    return undefined;
  } catch (error) {
    if (error instanceof LabelExpressionError) return error.message;
    throw error;
  }
}
