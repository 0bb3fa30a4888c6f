import {
  connectorSchemas,
  secretPlaceholder,
  type Connector,
  type ConnectorKind,
} from '@postern/contracts';
import { stringify } from 'yaml';
import { valueAt, type describe } from '../rbac/role.yaml.js';
import { parseYamlResource } from '../yaml-resource.js';

/**
 * Connectors in and out as YAML, with the roles' error form (`line N: path: message`, code
 * bad_parameter), so the console's YAML editor marks connector errors exactly like role errors.
 */
export function parseConnectorYaml(kind: ConnectorKind, text: string): Connector {
  return parseYamlResource(connectorSchemas[kind], text, `a ${kind} connector`, (issue, value) =>
    messageFor(kind, issue, value),
  );
}

/** The connector's own words for a wrong kind or version; others get the generic wording. */
function messageFor(
  kind: ConnectorKind,
  issue: Parameters<typeof describe>[0],
  value: unknown,
): string | undefined {
  const top = issue.path.length === 1 ? issue.path[0] : undefined;
  if (top === 'kind' && value !== undefined) {
    return `is '${String(value)}' but this is the ${kind} connectors' call`;
  }
  if (top === 'version' && value !== undefined) {
    return `unsupported connector version '${String(value)}': Postern reads v3`;
  }
  return undefined;
}

/** Where each kind keeps its secret, as a path in the document. */
const secretPaths: Record<ConnectorKind, readonly string[][]> = {
  oidc: [['spec', 'client_secret']],
  github: [['spec', 'client_secret']],
  saml: [['spec', 'signing_key_pair', 'private_key']],
};

/** Each secret of the connector, by its path joined with dots (absent ones are left out). */
export function secretsOf(connector: Connector): Map<string, string> {
  const found = new Map<string, string>();
  for (const path of secretPaths[connector.kind]) {
    const value = valueAt(connector, path);
    if (typeof value === 'string') found.set(path.join('.'), value);
  }
  return found;
}

/** A copy of the connector with each secret replaced by `replace(pathKey, value)`. */
export function mapSecrets<T extends Connector>(
  connector: T,
  replace: (pathKey: string, value: string) => string,
): T {
  const copy = structuredClone(connector);
  for (const path of secretPaths[connector.kind]) {
    const parent = valueAt(copy, path.slice(0, -1)) as Record<string, unknown> | undefined;
    const key = path[path.length - 1] as string;
    const value = parent?.[key];
    if (parent && typeof value === 'string') parent[key] = replace(path.join('.'), value);
  }
  return copy;
}

/** The YAML the console sees: every secret is the placeholder. */
export function connectorToYaml(connector: Connector): string {
  const shown = mapSecrets(connector, () => secretPlaceholder);
  return stringify(shown, {
    aliasDuplicateObjects: false,
    indentSeq: false,
    lineWidth: 0,
    singleQuote: true,
  });
}
