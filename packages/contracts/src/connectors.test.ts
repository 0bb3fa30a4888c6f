import { describe, expect, it } from 'vitest';
import { apiPaths } from './api-paths.js';
import { connectorItemSchema, ssoPaths } from './connectors.js';

describe('connector contracts', () => {
  it('address each kind, with the name kept inside its segment', () => {
    expect(apiPaths.connectors('oidc')).toBe('/v1/webapi/oidc');
    expect(apiPaths.connector('saml', 'okta/prod')).toBe('/v1/webapi/saml/okta%2Fprod');
    expect(apiPaths.patterns.connector('github')).toBe('/v1/webapi/github/:name');
    expect(ssoPaths.samlAcs('a b')).toBe('/v1/webapi/saml/acs/a%20b');
  });

  it('accept only the three kinds', () => {
    const item = { id: 'oidc:google', kind: 'oidc', name: 'google', content: 'kind: oidc\n' };
    expect(connectorItemSchema.safeParse(item).success).toBe(true);
    expect(connectorItemSchema.safeParse({ ...item, kind: 'ldap' }).success).toBe(false);
  });
});
