import type { ConnectorKind } from '@postern/contracts';
import { githubTemplate } from './githubTemplate';
import { oidcTemplate } from './oidcTemplate';
import { samlTemplate } from './samlTemplate';

/** The YAML a new connector starts from, its URLs pointing at this proxy (`origin`). */
export const connectorTemplate: Record<ConnectorKind, (origin: string) => string> = {
  oidc: oidcTemplate,
  saml: samlTemplate,
  github: githubTemplate,
};
