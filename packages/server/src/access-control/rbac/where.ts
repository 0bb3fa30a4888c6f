/**
 * `where` clauses of role rules. Supported: `equals(a, b)`, `contains(list, item)`, `!`, `&&`,
 * `||` and parentheses, over string literals and paths: `user.metadata.name`, `user.spec.roles`,
 * `user.spec.traits["team"]`, and the resource's fields through `resource.…` or the kind's own name
 * (`session.participants`, `session_tracker.participants`, `resource.metadata.labels["env"]`).
 *
 * Evaluation is three-valued: true, false, or unknown (undefined) when the resource is not at hand
 * or a function is not one of the above. The engine reads unknown as "no" for allow rules and as
 * "yes" for deny rules, so an unsupported clause never grants and never lifts a deny.
 */
export type WhereValue = { str: string } | { path: string[] };
export type WhereExpr =
  | { op: 'and' | 'or'; left: WhereExpr; right: WhereExpr }
  | { op: 'not'; expr: WhereExpr }
  | { op: 'call'; fn: string; args: WhereValue[] };

export interface WhereUser {
  metadata: { name: string };
  spec: {
    roles: readonly string[];
    traits: Readonly<Record<string, readonly string[] | undefined>>;
  };
}

export interface WhereContext {
  user: WhereUser;
  /** The resource the verb is applied to; absent when the server only asks whether it might be. */
  resource?: unknown;
}

type Token = { op: string } | { str: string } | { id: string };
const tokenPattern = /\s*(?:(&&|\|\||[!(),.[\]])|"((?:[^"\\]|\\.)*)"|([A-Za-z_]\w*))/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  tokenPattern.lastIndex = 0;
  while (tokenPattern.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(tokenPattern.lastIndex))) break;
    const at = tokenPattern.lastIndex;
    const m = tokenPattern.exec(text);
    if (!m) throw new Error(`unexpected '${text.slice(at).trim().slice(0, 20)}'`);
    if (m[1] !== undefined) tokens.push({ op: m[1] });
    else if (m[2] !== undefined) tokens.push({ str: m[2].replace(/\\(.)/g, '$1') });
    else tokens.push({ id: m[3] ?? '' });
  }
  return tokens;
}

/** Parses a clause; throws an Error naming the problem. */
export function parseWhere(text: string): WhereExpr {
  const tokens = tokenize(text);
  let i = 0;
  const peekOp = (op: string) => {
    const t = tokens[i];
    return t !== undefined && 'op' in t && t.op === op;
  };
  const expect = (op: string) => {
    if (!peekOp(op)) throw new Error(`expected '${op}'`);
    i++;
  };
  const identifier = (): string => {
    const t = tokens[i++];
    if (t === undefined || !('id' in t)) throw new Error('expected a name');
    return t.id;
  };
  const value = (): WhereValue => {
    const t = tokens[i];
    if (t !== undefined && 'str' in t) {
      i++;
      return { str: t.str };
    }
    const path = [identifier()];
    for (;;) {
      if (peekOp('.')) {
        i++;
        path.push(identifier());
      } else if (peekOp('[')) {
        i++;
        const key = tokens[i++];
        if (key === undefined || !('str' in key)) throw new Error('expected a quoted key after [');
        path.push(key.str);
        expect(']');
      } else return { path };
    }
  };
  const call = (): WhereExpr => {
    const fn = [identifier()];
    while (peekOp('.')) {
      i++;
      fn.push(identifier());
    }
    expect('(');
    const args: WhereValue[] = [];
    if (!peekOp(')')) {
      args.push(value());
      while (peekOp(',')) {
        i++;
        args.push(value());
      }
    }
    expect(')');
    return { op: 'call', fn: fn.join('.'), args };
  };
  const unary = (): WhereExpr => {
    if (peekOp('!')) {
      i++;
      return { op: 'not', expr: unary() };
    }
    if (peekOp('(')) {
      i++;
      const inner = or();
      expect(')');
      return inner;
    }
    return call();
  };
  const binary = (op: 'and' | 'or', token: string, next: () => WhereExpr) => (): WhereExpr => {
    let left = next();
    while (peekOp(token)) {
      i++;
      left = { op, left, right: next() };
    }
    return left;
  };
  const and = binary('and', '&&', unary);
  const or: () => WhereExpr = binary('or', '||', and);
  if (tokens.length === 0) throw new Error('empty expression');
  const expr = or();
  if (i < tokens.length) throw new Error('unexpected text after the expression');
  return expr;
}

const UNKNOWN = Symbol('unknown');

function resolve(arg: WhereValue, ctx: WhereContext): unknown {
  if ('str' in arg) return arg.str;
  const [root, ...rest] = arg.path;
  let current: unknown = root === 'user' ? ctx.user : ctx.resource;
  if (root !== 'user' && ctx.resource === undefined) return UNKNOWN;
  for (const key of rest) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const sameValue = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((item, n) => item === b[n])
    : typeof a === 'string' && a === b;

function evaluateCall(fn: string, args: unknown[]): boolean | undefined {
  if (args.includes(UNKNOWN) || args.length !== 2) return undefined;
  const [a, b] = args;
  if (fn === 'equals') return sameValue(a, b);
  if (fn === 'contains') return Array.isArray(a) && typeof b === 'string' && a.includes(b);
  return undefined;
}

/** True, false, or undefined when it cannot be known (see the module comment). */
export function evaluateWhere(expr: WhereExpr, ctx: WhereContext): boolean | undefined {
  switch (expr.op) {
    case 'not': {
      const inner = evaluateWhere(expr.expr, ctx);
      return inner === undefined ? undefined : !inner;
    }
    case 'and':
    case 'or': {
      const left = evaluateWhere(expr.left, ctx);
      const right = evaluateWhere(expr.right, ctx);
      const decisive = expr.op === 'and' ? false : true;
      if (left === decisive || right === decisive) return decisive;
      return left === undefined || right === undefined ? undefined : !decisive;
    }
    case 'call':
      return evaluateCall(
        expr.fn,
        expr.args.map((arg) => resolve(arg, ctx)),
      );
  }
}
