/**
 * Regular expressions for label expressions, run in linear time. A pattern is compiled once to a
 * small program and run by simulating every thread of the automaton in step (a Pike VM), so a
 * match costs at most (input length × program size) steps whatever the pattern: no pattern, and
 * no label or trait value, can make evaluation hang the way a backtracking engine can
 * (`^(a+)+$`, `^.*a.*a.*a.*b$`).
 *
 * The syntax is the reference's (Go's RE2) minus what a linear engine cannot do or Postern does not
 * need: literals, `.`, classes (`[a-z]`, `[^,]`, `\d \w \s` and their negations), groups (`( )`,
 * `(?: )`, `(?P<name> )`, `(?<name> )`), `|`, the quantifiers `* + ? {n} {n,} {n,m}` (and their
 * lazy forms) and the anchors `^ $ \A \z` (beginning and end of the text). Refused with a reason:
 * backreferences, look-around, word boundaries, flags, POSIX and Unicode classes, a pattern
 * longer than `maxPatternLength`, a repeat count above `maxRepeat` and a program larger than
 * `maxProgramSize` (counted repeats are written out).
 */

export const maxPatternLength = 256;
export const maxRepeat = 100;
export const maxProgramSize = 2000;

export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

type CharTest = (cp: number) => boolean;
type Node =
  | { t: 'empty' }
  | { t: 'char'; test: CharTest }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number; greedy: boolean }
  | { t: 'group'; node: Node; index: number }
  | { t: 'bol' }
  | { t: 'eol' };

const cp = (s: string) => s.codePointAt(0) ?? 0;
const newline = cp('\n');
const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWord: CharTest = (c) =>
  isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
// Go's \s: space, \t, \n, \v, \f, \r.
const isSpace: CharTest = (c) => c === 32 || (c >= 9 && c <= 13);
const not =
  (test: CharTest): CharTest =>
  (c) =>
    !test(c);
const classEscapes: Record<string, CharTest> = {
  d: isDigit,
  D: not(isDigit),
  w: isWord,
  W: not(isWord),
  s: isSpace,
  S: not(isSpace),
};
const controlEscapes: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };

/** The syntax tree of a pattern, and the names of its capture groups. */
function parsePattern(pattern: string): { node: Node; groups: number; names: Map<string, number> } {
  if (pattern.length > maxPatternLength) {
    throw new PatternError(`the pattern is longer than ${maxPatternLength} characters`);
  }
  const chars = Array.from(pattern);
  let i = 0;
  let groups = 0;
  const names = new Map<string, number>();
  const peek = () => chars[i];
  const fail = (what: string): never => {
    throw new PatternError(`${what} in '${pattern}'`);
  };

  const escape = (): CharTest | number => {
    const c = chars[i++];
    if (c === undefined) return fail('a trailing backslash');
    if (classEscapes[c]) return classEscapes[c];
    if (controlEscapes[c] !== undefined) return controlEscapes[c];
    if (/[0-9]/.test(c)) return fail('backreferences are not supported');
    if (/[A-Za-z]/.test(c)) return fail(`the escape \\${c} is not supported`);
    return cp(c);
  };

  const charClass = (): CharTest => {
    const negated = peek() === '^';
    if (negated) i++;
    const tests: CharTest[] = [];
    let first = true;
    for (;;) {
      const c = chars[i];
      if (c === undefined) return fail("a missing ']'");
      if (c === ']' && !first) {
        i++;
        break;
      }
      first = false;
      if (c === '[' && chars[i + 1] === ':') return fail('POSIX classes are not supported');
      i++;
      let lo: number;
      if (c === '\\') {
        const e = escape();
        if (typeof e !== 'number') {
          tests.push(e);
          continue;
        }
        lo = e;
      } else lo = cp(c);
      if (chars[i] === '-' && chars[i + 1] !== undefined && chars[i + 1] !== ']') {
        i++;
        const d = chars[i++] ?? '';
        const hi = d === '\\' ? escape() : cp(d);
        if (typeof hi !== 'number') return fail('a class range ends in a class');
        if (hi < lo) return fail('a class range out of order');
        tests.push((x) => x >= lo && x <= hi);
      } else tests.push((x) => x === lo);
    }
    const inSet: CharTest = (x) => tests.some((test) => test(x));
    return negated ? not(inSet) : inSet;
  };

  const atom = (): Node => {
    const c = chars[i++] ?? '';
    switch (c) {
      case '(': {
        let index = 0;
        if (peek() === '?') {
          const rest = chars.slice(i, i + 3).join('');
          if (rest.startsWith('?:')) i += 2;
          else if (rest.startsWith('?P<') || rest.startsWith('?<')) {
            i += rest.startsWith('?P<') ? 3 : 2;
            let name = '';
            while (peek() !== undefined && peek() !== '>') name += chars[i++];
            if (peek() !== '>' || !/^[A-Za-z_]\w*$/.test(name)) fail('an invalid group name');
            i++;
            if (names.has(name)) fail(`a duplicate group name '${name}'`);
            index = ++groups;
            names.set(name, index);
          } else fail('group flags and look-around are not supported');
        } else index = ++groups;
        const node = alternation();
        if (chars[i++] !== ')') fail("a missing ')'");
        return index > 0 ? { t: 'group', node, index } : node;
      }
      case '.':
        return { t: 'char', test: (x) => x !== newline };
      case '^':
        return { t: 'bol' };
      case '$':
        return { t: 'eol' };
      case '[':
        return { t: 'char', test: charClass() };
      case '\\': {
        if (peek() === 'A' || peek() === 'z') {
          return { t: chars[i++] === 'A' ? 'bol' : 'eol' };
        }
        if (peek() === 'b' || peek() === 'B') fail('word boundaries are not supported');
        const e = escape();
        return { t: 'char', test: typeof e === 'number' ? (x) => x === e : e };
      }
      case '*':
      case '+':
      case '?':
        return fail(`a '${c}' with nothing to repeat`);
      default: {
        const code = cp(c);
        return { t: 'char', test: (x) => x === code };
      }
    }
  };

  /** `{n}`, `{n,}`, `{n,m}` at i, or undefined (then `{` is a literal, as in Go). */
  const counted = (): { min: number; max: number } | undefined => {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(chars.slice(i, i + 24).join(''));
    if (!m) return undefined;
    i += Array.from(m[0]).length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    if (min > maxRepeat || (max !== Infinity && max > maxRepeat)) {
      fail(`a repeat count above ${maxRepeat}`);
    }
    if (max < min) fail('a repeat range out of order');
    return { min, max };
  };

  const quantified = (): Node => {
    let node = atom();
    let quantifiers = 0;
    for (;;) {
      const c = peek();
      let range: { min: number; max: number } | undefined;
      if (c === '*') range = { min: 0, max: Infinity };
      else if (c === '+') range = { min: 1, max: Infinity };
      else if (c === '?') range = { min: 0, max: 1 };
      if (range) i++;
      else if (c === '{') range = counted();
      if (!range) return node;
      if (++quantifiers > 1) fail('a repeated repetition');
      const greedy = peek() !== '?';
      if (!greedy) i++;
      if (node.t === 'bol' || node.t === 'eol') fail('a repeated anchor');
      node = { t: 'rep', node, min: range.min, max: range.max, greedy };
    }
  };

  const sequence = (): Node => {
    const items: Node[] = [];
    while (i < chars.length && peek() !== '|' && peek() !== ')') items.push(quantified());
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? (items[0] as Node) : { t: 'cat', items };
  };

  const alternation = (): Node => {
    const items = [sequence()];
    while (peek() === '|') {
      i++;
      items.push(sequence());
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'alt', items };
  };

  const node = alternation();
  if (i < chars.length) fail(`an unmatched ')'`);
  return { node, groups, names };
}

type Inst =
  | { op: 'char'; test: CharTest }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'save'; n: number }
  | { op: 'bol' }
  | { op: 'eol' }
  | { op: 'match' };

/** Instructions a node compiles to, saturating at the limit (so huge counts fail fast). */
function sizeOf(node: Node): number {
  switch (node.t) {
    case 'empty':
      return 0;
    case 'char':
    case 'bol':
    case 'eol':
      return 1;
    case 'cat':
      return node.items.reduce((sum, n) => Math.min(sum + sizeOf(n), maxProgramSize + 1), 0);
    case 'alt':
      return node.items.reduce((sum, n) => Math.min(sum + sizeOf(n) + 2, maxProgramSize + 1), 0);
    case 'group':
      return sizeOf(node.node) + 2;
    case 'rep': {
      const body = sizeOf(node.node);
      const copies = node.max === Infinity ? node.min + 1 : node.max;
      return Math.min(copies * (body + 2), maxProgramSize + 1);
    }
  }
}

function compile(node: Node): Inst[] {
  const prog: Inst[] = [];
  const emit = (inst: Inst) => prog.push(inst) - 1;
  const patch = (at: number, inst: Inst) => {
    prog[at] = inst;
  };
  const gen = (n: Node): void => {
    switch (n.t) {
      case 'empty':
        return;
      case 'char':
        emit({ op: 'char', test: n.test });
        return;
      case 'bol':
      case 'eol':
        emit({ op: n.t });
        return;
      case 'cat':
        n.items.forEach(gen);
        return;
      case 'group':
        emit({ op: 'save', n: 2 * n.index });
        gen(n.node);
        emit({ op: 'save', n: 2 * n.index + 1 });
        return;
      case 'alt': {
        const jumps: number[] = [];
        n.items.forEach((item, k) => {
          if (k === n.items.length - 1) {
            gen(item);
            return;
          }
          const split = emit({ op: 'jmp', x: 0 });
          gen(item);
          jumps.push(emit({ op: 'jmp', x: 0 }));
          patch(split, { op: 'split', x: split + 1, y: prog.length });
        });
        for (const j of jumps) patch(j, { op: 'jmp', x: prog.length });
        return;
      }
      case 'rep': {
        for (let k = 0; k < n.min; k++) gen(n.node);
        const branch = (body: number, out: number): Inst =>
          n.greedy ? { op: 'split', x: body, y: out } : { op: 'split', x: out, y: body };
        if (n.max === Infinity) {
          const loop = emit({ op: 'jmp', x: 0 });
          gen(n.node);
          emit({ op: 'jmp', x: loop });
          patch(loop, branch(loop + 1, prog.length));
          return;
        }
        const exits: number[] = [];
        for (let k = n.min; k < n.max; k++) {
          exits.push(emit({ op: 'jmp', x: 0 }));
          gen(n.node);
        }
        for (const at of exits) patch(at, branch(at + 1, prog.length));
        return;
      }
    }
  };
  emit({ op: 'save', n: 0 });
  gen(node);
  emit({ op: 'save', n: 1 });
  emit({ op: 'match' });
  return prog;
}

interface Thread {
  pc: number;
  caps: number[];
}

/** The leftmost-first match at or after `from` (code-point offsets), or undefined. */
function search(
  prog: readonly Inst[],
  input: readonly number[],
  from: number,
  slots: number,
  marks: Int32Array,
  generation: { n: number },
): number[] | undefined {
  const n = input.length;
  const add = (list: Thread[], gen: number, pc: number, caps: number[], pos: number): void => {
    if (marks[pc] === gen) return;
    marks[pc] = gen;
    const inst = prog[pc] as Inst;
    switch (inst.op) {
      case 'jmp':
        add(list, gen, inst.x, caps, pos);
        return;
      case 'split':
        add(list, gen, inst.x, caps, pos);
        add(list, gen, inst.y, caps, pos);
        return;
      case 'save': {
        const copy = caps.slice();
        copy[inst.n] = pos;
        add(list, gen, pc + 1, copy, pos);
        return;
      }
      case 'bol':
        if (pos === 0) add(list, gen, pc + 1, caps, pos);
        return;
      case 'eol':
        if (pos === n) add(list, gen, pc + 1, caps, pos);
        return;
      default:
        list.push({ pc, caps });
    }
  };
  let current: Thread[] = [];
  let currentGen = ++generation.n;
  let matched: number[] | undefined;
  for (let pos = from; pos <= n; pos++) {
    // A new start at each position, behind every thread already running (leftmost first).
    if (matched === undefined) add(current, currentGen, 0, new Array<number>(slots).fill(-1), pos);
    if (current.length === 0) break;
    const next: Thread[] = [];
    const nextGen = ++generation.n;
    for (const thread of current) {
      const inst = prog[thread.pc] as Inst;
      if (inst.op === 'match') {
        matched = thread.caps;
        break; // threads after this one have lower priority
      }
      if (inst.op === 'char' && pos < n && inst.test(input[pos] as number)) {
        add(next, nextGen, thread.pc + 1, thread.caps, pos + 1);
      }
    }
    current = next;
    currentGen = nextGen;
  }
  return matched;
}

/** A compiled pattern: `test` finds a match anywhere (use ^ and $ to anchor), in linear time. */
export interface SafeRegExp {
  readonly source: string;
  test(value: string): boolean;
  /**
   * Every non-overlapping match replaced by the template, expanded as the reference (Go) does:
   * `$1`, `${1}`, `$name`, `${name}` (a name is the longest run of letters, digits and `_`, so
   * write `${1}x`), `$$` for a dollar; an unknown group is empty.
   */
  replaceAll(value: string, template: string): string;
}

class Program implements SafeRegExp {
  readonly #prog: readonly Inst[];
  readonly #slots: number;
  readonly #names: ReadonlyMap<string, number>;
  readonly #marks: Int32Array;
  readonly #generation = { n: 0 };

  constructor(
    readonly source: string,
    parsed: ReturnType<typeof parsePattern>,
  ) {
    if (sizeOf(parsed.node) > maxProgramSize) {
      throw new PatternError(`the pattern '${source}' is too complex`);
    }
    this.#prog = compile(parsed.node);
    this.#slots = 2 * (parsed.groups + 1);
    this.#names = parsed.names;
    this.#marks = new Int32Array(this.#prog.length).fill(-1);
  }

  #search(input: readonly number[], from: number): number[] | undefined {
    // Generations only grow; start again long before they could overflow.
    if (this.#generation.n > 1e9) {
      this.#generation.n = 0;
      this.#marks.fill(-1);
    }
    return search(this.#prog, input, from, this.#slots, this.#marks, this.#generation);
  }

  test(value: string): boolean {
    return this.#search(codePoints(value), 0) !== undefined;
  }

  replaceAll(value: string, template: string): string {
    const chars = Array.from(value);
    const input = chars.map(cp);
    const parts = expansion(template);
    let out = '';
    let from = 0;
    let copied = 0;
    let lastEnd = -1;
    while (from <= input.length) {
      const caps = this.#search(input, from);
      if (!caps) break;
      const [start = 0, end = 0] = caps;
      // An empty match right after the previous match is skipped, as in Go.
      if (!(start === end && start === lastEnd)) {
        out += chars.slice(copied, start).join('');
        for (const part of parts) {
          if (typeof part === 'string') {
            out += part;
            continue;
          }
          const index = typeof part.group === 'number' ? part.group : this.#names.get(part.group);
          const a = index === undefined ? -1 : (caps[2 * index] ?? -1);
          const b = index === undefined ? -1 : (caps[2 * index + 1] ?? -1);
          if (a >= 0 && b >= a) out += chars.slice(a, b).join('');
        }
        copied = end;
        lastEnd = end;
      }
      from = end > start ? end : start + 1;
    }
    return out + chars.slice(copied).join('');
  }
}

const codePoints = (value: string) => Array.from(value, cp);

/** A replacement template split into text and group references. */
function expansion(template: string): Array<string | { group: number | string }> {
  const parts: Array<string | { group: number | string }> = [];
  let text = '';
  const pattern = /\$(?:\$|\{(\w+)\}|(\w+))/g;
  let last = 0;
  for (const m of template.matchAll(pattern)) {
    text += template.slice(last, m.index);
    last = m.index + m[0].length;
    const name = m[1] ?? m[2];
    if (name === undefined) {
      text += '$';
      continue;
    }
    if (text) parts.push(text);
    text = '';
    parts.push({ group: /^\d+$/.test(name) ? Number(name) : name });
  }
  text += template.slice(last);
  if (text) parts.push(text);
  return parts;
}

/** A regular expression as written (Go syntax); throws PatternError. */
export function compileRegExp(pattern: string): SafeRegExp {
  return new Program(pattern, parsePattern(pattern));
}

/**
 * A value pattern as label selectors write them: `*` (anything), `^regex$`, a glob with `*`
 * wildcards, or a literal. Matches the whole value. Throws PatternError.
 */
export function compileValuePattern(pattern: string): SafeRegExp {
  if (pattern.length > maxPatternLength) {
    throw new PatternError(`the pattern is longer than ${maxPatternLength} characters`);
  }
  if (pattern.startsWith('^') && pattern.endsWith('$') && pattern.length >= 2) {
    return compileRegExp(pattern);
  }
  const pieces = pattern.split('*');
  const items: Node[] = [{ t: 'bol' }];
  pieces.forEach((piece, k) => {
    if (k > 0)
      items.push({
        t: 'rep',
        node: { t: 'char', test: () => true },
        min: 0,
        max: Infinity,
        greedy: true,
      });
    for (const c of Array.from(piece)) {
      const code = cp(c);
      items.push({ t: 'char', test: (x) => x === code });
    }
  });
  items.push({ t: 'eol' });
  return new Program(pattern, { node: { t: 'cat', items }, groups: 0, names: new Map() });
}
