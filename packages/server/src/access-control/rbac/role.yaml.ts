import type { RoleValidationIssue } from '@postern/contracts';
import { isMap, isSeq, LineCounter, parseDocument, stringify, type Document } from 'yaml';
import type { z } from 'zod';
import { ApiError } from '../../errors.js';
import { knownFieldsAt, roleSchema, unsupportedFields, type Role } from './role.schema.js';

/**
 * Roles in and out as YAML (JSON is YAML too). Every problem is reported with the field's path
 * and its 1-based line, so the editor can mark it; the message lists them as `line N: path: text`.
 */
export class RoleValidationError extends ApiError {
  readonly issues: readonly RoleValidationIssue[];

  constructor(issues: RoleValidationIssue[]) {
    const sorted = [...issues].sort((a, b) => a.line - b.line);
    super('bad_parameter', sorted.map((i) => `line ${i.line}: ${i.path}: ${i.message}`).join('\n'));
    this.name = 'RoleValidationError';
    this.issues = sorted;
  }
}

type Path = readonly PropertyKey[];

export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(seg))) out += out ? `.${String(seg)}` : String(seg);
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || '(document)';
}

/**
 * A YAML document and its plain value, or RoleValidationError naming the line of each syntax
 * error: the first step of reading any resource shown to people as YAML (roles, connectors).
 */
export function readYamlDocument(text: string) {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  if (doc.errors.length > 0) {
    throw new RoleValidationError(
      doc.errors.map((e) => ({
        path: 'yaml',
        line: lineAt(e.pos[0]),
        message: e.message.replace(/\s+/g, ' ').trim(),
      })),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new RoleValidationError([{ path: 'yaml', line: 1, message: (error as Error).message }]);
  }
  return { doc, value, lineAt };
}

/** Parses and validates a role; throws RoleValidationError (code bad_parameter). */
export function parseRoleYaml(text: string): { role: Role } {
  const { doc, value, lineAt } = readYamlDocument(text);
  if (value === null || value === undefined) {
    throw new RoleValidationError([{ path: '(document)', line: 1, message: 'the role is empty' }]);
  }
  const result = roleSchema.safeParse(value);
  if (result.success) return { role: result.data };
  const locate = (path: Path) => lineOf(doc, path, lineAt);
  const issues: RoleValidationIssue[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        issues.push({
          path: formatPath(path),
          line: locate(path),
          message: unknownField(issue.path, key),
        });
      }
    } else {
      const message = describe(issue, valueAt(value, issue.path));
      issues.push({ path: formatPath(issue.path), line: locate(issue.path), message });
    }
  }
  throw new RoleValidationError(issues);
}

/** The role as YAML, in the reference's layout (kind, version, metadata, spec). */
export function roleToYaml(role: Role): string {
  return stringify(role, {
    aliasDuplicateObjects: false,
    indentSeq: false,
    lineWidth: 0,
    singleQuote: true,
  });
}

function unknownField(parent: Path, key: string): string {
  const reason = unsupportedFields[key];
  if (reason) return reason;
  const message = `unknown field '${formatPath([...parent, key])}'`;
  const best = knownFieldsAt(parent)
    .map((name) => ({ name, distance: editDistance(name, key) }))
    .sort((a, b) => a.distance - b.distance)[0];
  return best && best.distance <= Math.max(1, Math.floor(key.length / 3))
    ? `${message}; did you mean '${best.name}'?`
    : message;
}

const nouns: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a map',
  record: 'a map',
  number: 'a number',
};

function show(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  return String(value);
}

export function describe(issue: z.core.$ZodIssue, value: unknown): string {
  const zodDefault = issue.message.startsWith('Invalid');
  if (issue.path.length === 1 && issue.path[0] === 'version' && value !== undefined) {
    return `unsupported role version ${show(value)}: Postern reads v5, v6 and v7`;
  }
  if (issue.code === 'invalid_type') {
    if (value === undefined) return 'is required';
    if (!zodDefault) return `${issue.message}, got ${show(value)}`;
    return `expected ${nouns[issue.expected] ?? issue.expected}, got ${show(value)}`;
  }
  if (issue.code === 'invalid_value' && zodDefault) {
    const options = issue.values.map((v) => `'${String(v)}'`);
    const expected = options.length === 1 ? options[0] : `one of ${options.join(', ')}`;
    return `expected ${expected}, got ${show(value)}`;
  }
  return issue.message;
}

export function valueAt(root: unknown, path: Path): unknown {
  let current = root;
  for (const seg of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[seg];
  }
  return current;
}

/** The line of the field (its key), of the list item, or else of the nearest enclosing field. */
export function lineOf(doc: Document, path: Path, lineAt: (offset: number) => number): number {
  for (let n = path.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
    const seg = path[n - 1];
    if (isMap(parent)) {
      const pair = parent.items.find(
        (p) => String((p.key as { value?: unknown })?.value) === String(seg),
      );
      const offset = (pair?.key as { range?: [number] } | undefined)?.range?.[0];
      if (offset !== undefined) return lineAt(offset);
    } else if (isSeq(parent) && typeof seg === 'number') {
      const offset = (parent.items[seg] as { range?: [number] } | undefined)?.range?.[0];
      if (offset !== undefined) return lineAt(offset);
    }
  }
  const start = doc.contents?.range?.[0];
  return start === undefined ? 1 : lineAt(start);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}
