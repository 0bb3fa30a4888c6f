import { describe, expect, it } from 'vitest';
import { connectorNameIn, hidesSecrets } from './connectorYaml';

describe('connector YAML as typed', () => {
  it('reads metadata.name, not another name', () => {
    expect(connectorNameIn('kind: saml\nmetadata:\n  # comment\n\n  name: corp\nspec:\n')).toBe(
      'corp',
    );
    expect(connectorNameIn("metadata:\n  labels: {}\n  name: 'quoted'\n")).toBe('quoted');
    expect(connectorNameIn('spec:\n  name: not-this\n')).toBeUndefined();
    expect(connectorNameIn('metadata:\n  name:\n')).toBeUndefined();
  });

  it('notices the secret placeholder', () => {
    expect(hidesSecrets('client_secret: **********')).toBe(true);
    expect(hidesSecrets('client_secret: s3cret')).toBe(false);
  });
});
