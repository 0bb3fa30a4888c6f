import { secretPlaceholder, trustedClusterSchema, type TrustedCluster } from '@postern/contracts';
import { stringify } from 'yaml';
import { parseYamlResource } from '../../access-control/yaml-resource.js';

/** A trusted cluster from the YAML (or JSON) a user sent, with errors at their line. */
export function parseTrustedClusterYaml(text: string): TrustedCluster {
  return parseYamlResource(
    trustedClusterSchema,
    text,
    'a trusted_cluster resource',
    (issue, value) =>
      issue.path.length === 1 && issue.path[0] === 'kind' && value !== undefined
        ? `is '${String(value)}' but this is the trusted clusters' call`
        : undefined,
  );
}

/** The YAML the console and `postern get` show: the token as the placeholder. */
export function trustedClusterToYaml(resource: TrustedCluster): string {
  const shown: TrustedCluster = {
    kind: resource.kind,
    version: resource.version,
    metadata: resource.metadata,
    spec: { ...resource.spec, token: secretPlaceholder },
  };
  return stringify(shown, {
    aliasDuplicateObjects: false,
    indentSeq: false,
    lineWidth: 0,
    singleQuote: true,
  });
}
