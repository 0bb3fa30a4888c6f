import type { RoleValidationIssue } from '@postern/contracts';
import type { z } from 'zod';
import {
  describe,
  formatPath,
  lineOf,
  readYamlDocument,
  RoleValidationError,
  valueAt,
} from './rbac/role.yaml.js';

type Issue = Parameters<typeof describe>[0];

/**
 * A YAML resource (a connector, a trusted cluster) checked with its zod schema, failing with the
 * roles' error form (`line N: path: message`, code bad_parameter) so the console's YAML editor
 * marks every resource's errors alike. `messageFor` may word an issue in the kind's own terms.
 */
export function parseYamlResource<S extends z.ZodType>(
  schema: S,
  text: string,
  what: string,
  messageFor?: (issue: Issue, value: unknown) => string | undefined,
): z.output<S> {
  const { doc, value, lineAt } = readYamlDocument(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RoleValidationError([{ path: '(document)', line: 1, message: `expected ${what}` }]);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: RoleValidationIssue[] = [];
  for (const issue of result.error.issues) {
    const paths =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => [...issue.path, key])
        : [issue.path];
    for (const path of paths) {
      const at = valueAt(value, issue.path);
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown field '${formatPath(path)}'`
          : (messageFor?.(issue, at) ?? describe(issue, at));
      issues.push({ path: formatPath(path), line: lineOf(doc, path, lineAt), message });
    }
  }
  throw new RoleValidationError(issues);
}
