import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/app-harness.testkit.js';
import { bootstrapFirstAdmin, bootstrapKey } from './first-admin.js';

describe('the first admin', () => {
  it('is created once, on a fresh cluster, with a one-time invite link', async () => {
    const app = await createTestApp();
    try {
      const invite = await bootstrapFirstAdmin(
        app.backend,
        app.services,
        'https://proxy.test:3080',
      );
      expect(invite?.url).toMatch(/^https:\/\/proxy\.test:3080\/web\/invite\/[0-9a-f]{32}$/);
      const admin = await app.services.users.get('admin');
      expect(admin.spec.roles).toEqual(['access', 'auditor', 'editor']);
      const tokenId = invite!.url.split('/').pop()!;
      const details = await app.server.inject({
        url: `/v1/webapi/users/password/token/${tokenId}`,
      });
      expect(details.json()).toMatchObject({ user: 'admin', type: 'invite' });
      // Never again, even once every user is gone.
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'x')).toBeNull();
      await app.backend.delete('/users/admin');
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'x')).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('is not created where users exist already', async () => {
    const app = await createTestApp();
    try {
      await app.services.users.create({ name: 'old', roles: ['editor'] }, 'test');
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'x')).toBeNull();
      expect(await app.backend.get(bootstrapKey)).not.toBeNull();
      expect(await app.services.users.store.get('admin')).toBeNull();
    } finally {
      await app.close();
    }
  });
});
