import { describe, expect, it } from 'vitest';
import { clientConfigSchema } from './client-config.js';

describe('clientConfigSchema', () => {
  it('fills the spec §3 defaults into an empty config', () => {
    const config = clientConfigSchema.parse({});
    expect(config).toMatchObject({
      proxyCluster: 'localhost',
      ui: { scrollbackLines: 1000 },
      loc: { dateTimeFormat: 'YYYY-MM-DD HH:mm:ss', dateFormat: 'YYYY-MM-DD' },
      auth: { second_factor: 'off', authType: 'local', privateKeyPolicy: 'none', providers: [] },
    });
  });

  it('keeps what the server sends', () => {
    const config = clientConfigSchema.parse({
      proxyCluster: 'prod',
      auth: { second_factor: 'webauthn' },
    });
    expect(config.proxyCluster).toBe('prod');
    expect(config.auth.second_factor).toBe('webauthn');
    expect(config.auth.localAuthEnabled).toBe(true);
  });
});
