/**
 * Trait templates in role values: `{{internal.logins}}`, `{{external.groups}}`,
 * `{{external["http://claims/role"]}}`, `{{email.local(external.email)}}` and
 * `{{regexp.replace(external.groups, "^env-(.*)$", "$1")}}`, optionally with a literal prefix and
 * suffix around one `{{ }}`. A value without braces is a literal, even if it reads `internal.logins`.
 */

/** The user's own traits that `internal.NAME` may name (the reference's list). */
export const internalTraitNames = [
  'logins',
  'windows_logins',
  'kubernetes_groups',
  'kubernetes_users',
  'db_names',
  'db_users',
  'db_roles',
  'aws_role_arns',
  'azure_identities',
  'gcp_service_accounts',
  'host_user_uid',
  'host_user_gid',
  'jwt',
] as const;

export type TraitMap = Readonly<Record<string, readonly string[] | undefined>>;

/**
 * `internal.NAME` reads the user's own traits; `external.NAME` reads the identity provider's claims
 * and falls back to the user's own traits (the reference reads both from one trait map).
 */
export interface UserTraits {
  traits?: TraitMap;
  externalTraits?: TraitMap;
}

type Transform = (value: string) => string | undefined;

interface Variable {
  namespace: 'internal' | 'external';
  name: string;
}

type Template =
  | { literal: string }
  | { prefix: string; suffix: string; variable: Variable; transform?: Transform };

const variablePattern = String.raw`([A-Za-z_][\w]*)\s*(?:\.\s*([\w-]+)|\[\s*"([^"]+)"\s*\])`;
const stringPattern = String.raw`"((?:[^"\\]|\\.)*)"`;
const emailLocal = new RegExp(String.raw`^email\.local\(\s*${variablePattern}\s*\)$`);
const regexpReplace = new RegExp(
  String.raw`^regexp\.replace\(\s*${variablePattern}\s*,\s*${stringPattern}\s*,\s*${stringPattern}\s*\)$`,
);
const bareVariable = new RegExp(`^${variablePattern}$`);

const unquote = (text: string) => text.replace(/\\(["\\])/g, '$1');

function variable(namespace: string | undefined, dotted?: string, bracketed?: string): Variable {
  const name = dotted ?? bracketed ?? '';
  if (namespace !== 'internal' && namespace !== 'external') {
    throw new Error(`unknown trait namespace '${namespace}': use internal or external`);
  }
  if (namespace === 'internal' && !(internalTraitNames as readonly string[]).includes(name)) {
    throw new Error(`unknown internal trait '${name}'`);
  }
  return { namespace, name };
}

function goRegExp(pattern: string): RegExp {
  try {
    return new RegExp(pattern.replace(/\(\?P</g, '(?<'));
  } catch {
    throw new Error(`invalid regular expression '${pattern}'`);
  }
}

function parseExpression(
  expression: string,
): Pick<Extract<Template, { variable: Variable }>, 'variable' | 'transform'> {
  let m = bareVariable.exec(expression);
  if (m) return { variable: variable(m[1], m[2], m[3]) };
  m = emailLocal.exec(expression);
  if (m) {
    const transform: Transform = (value) => {
      const at = value.lastIndexOf('@');
      return at > 0 ? value.slice(0, at) : undefined;
    };
    return { variable: variable(m[1], m[2], m[3]), transform };
  }
  m = regexpReplace.exec(expression);
  if (m) {
    const pattern = goRegExp(unquote(m[4] ?? ''));
    const replacement = unquote(m[5] ?? '').replace(/\$\{(\w+)\}/g, '$$$1');
    const transform: Transform = (value) =>
      pattern.test(value) ? value.replace(new RegExp(pattern, 'g'), replacement) : undefined;
    return { variable: variable(m[1], m[2], m[3]), transform };
  }
  throw new Error(
    `unsupported template '{{${expression}}}': use internal.NAME, external.NAME, email.local(…) or regexp.replace(…)`,
  );
}

/** Parses one value; throws an Error whose message says what is wrong. */
export function parseTemplate(value: string): Template {
  const open = value.indexOf('{{');
  const close = value.indexOf('}}');
  if (open < 0 && close < 0) return { literal: value };
  if (close < 0) throw new Error(`unclosed '{{' in '${value}'`);
  if (open < 0 || close < open) throw new Error(`unbalanced '}}' in '${value}'`);
  const rest = value.slice(close + 2);
  if (value.indexOf('{{', open + 2) >= 0 && value.indexOf('{{', open + 2) < close) {
    throw new Error(`nested '{{' in '${value}'`);
  }
  if (rest.includes('{{') || rest.includes('}}')) {
    throw new Error(`only one {{ }} expression is allowed in '${value}'`);
  }
  const expression = value.slice(open + 2, close).trim();
  return { prefix: value.slice(0, open), suffix: rest, ...parseExpression(expression) };
}

/** The problem with a value, or undefined if it is a literal or a well-formed template. */
export function templateProblem(value: string): string | undefined {
  try {
    parseTemplate(value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function lookup(traits: UserTraits, { namespace, name }: Variable): readonly string[] {
  if (namespace === 'internal') return traits.traits?.[name] ?? [];
  return traits.externalTraits?.[name] ?? traits.traits?.[name] ?? [];
}

/** The values one role value stands for. An unknown trait (or a bad template) gives none. */
export function expandTemplate(value: string, traits: UserTraits): string[] {
  let template: Template;
  try {
    template = parseTemplate(value);
  } catch {
    return [];
  }
  if ('literal' in template) return [value];
  const out: string[] = [];
  for (const raw of lookup(traits, template.variable)) {
    const expanded = template.transform ? template.transform(raw) : raw;
    if (expanded !== undefined && expanded !== '')
      out.push(template.prefix + expanded + template.suffix);
  }
  return out;
}

/** Expands a list of role values, dropping duplicates and values that expand to nothing. */
export function expandAll(values: readonly string[] | undefined, traits: UserTraits): string[] {
  const out = new Set<string>();
  for (const value of values ?? []) for (const v of expandTemplate(value, traits)) out.add(v);
  return [...out];
}
