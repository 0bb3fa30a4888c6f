import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../backend/index.js';
import { SecretBox, sealContext } from './secret-box.js';

describe('secret box', () => {
  it('seals under the cluster key, which every box on the backend shares', async () => {
    const backend = new MemoryBackend();
    const sealed = await SecretBox.forBackend(backend).seal(
      'hunter2-secret',
      sealContext('a', 'url'),
    );
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('hunter2');
    const other = SecretBox.forBackend(backend);
    expect(await other.open(sealed, sealContext('a', 'url'))).toBe('hunter2-secret');
    expect(await backend.get('/cluster_secrets/integration-seal')).not.toBeNull();
  });

  it('refuses a value moved to another integration or field, or altered', async () => {
    const box = SecretBox.forBackend(new MemoryBackend());
    const sealed = await box.seal('secret', sealContext('a', 'url'));
    await expect(box.open(sealed, sealContext('b', 'url'))).rejects.toThrow();
    await expect(box.open(sealed, sealContext('a', 'password'))).rejects.toThrow();
    const flipped = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    await expect(box.open(flipped, sealContext('a', 'url'))).rejects.toThrow();
    await expect(box.open('v9.abc', sealContext('a', 'url'))).rejects.toThrow(/unknown format/);
  });
});
