import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { rootResource, trustedClusterToken } from './trusted-clusters.testkit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { cliDataDir } from '../../cli/cli-harness.testkit.js';
import { createFromFile, getResources, removeResource } from '../../cli/resources.commands.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

const { state, run, failure } = cliDataDir();

/** `postern create -f` on a leaf's storage asks a real root (a test app on loopback). */
describe('postern get, create, rm for trusted and remote clusters', () => {
  let root: TestApp;
  let rootUrl: string;
  beforeAll(async () => {
    root = await createTestApp({ clusterName: 'root' });
    rootUrl = (await root.listenOnLoopback()).baseUrl;
  });
  afterAll(() => root?.close());

  const resource = async (token: string) => {
    const file = path.join(state.dir, 'tc.yaml');
    await writeFile(file, rootResource(token, rootUrl, "[{remote: '*', local: [access]}]"));
    return file;
  };

  it('creates one that the root accepted, shows its token as the placeholder, and removes it', async () => {
    const refused = await failure(async (ctx, print) =>
      createFromFile(ctx, await resource('wrong'), {}, print),
    );
    expect(refused).toMatch(/the root cluster refused to trust this cluster/);

    const token = await trustedClusterToken(root);
    const file = await resource(token);
    expect(await run((ctx, print) => createFromFile(ctx, file, {}, print))).toEqual([
      'trusted cluster root has been created: this cluster now trusts root',
    ]);
    expect(await failure((ctx, print) => createFromFile(ctx, file, {}, print))).toMatch(
      /already exists: pass --force/,
    );
    const yaml = (await run((ctx, print) => getResources(ctx, 'tc', undefined, {}, print))).join(
      '\n',
    );
    expect(yaml).toContain("token: '**********'");
    expect(yaml).not.toContain(token);
    expect(yaml).not.toContain('identityKey');

    // The root lists it, and its admin can stop trusting it.
    const rcs = await root.services.trustedClusters.remoteClusters.store.list();
    expect(rcs.map((rc) => rc.name)).toHaveLength(1);
    expect(await run((ctx, print) => removeResource(ctx, 'trusted_cluster/root', print))).toEqual([
      'trusted cluster root has been deleted',
    ]);
    const after = await run((ctx, print) => getResources(ctx, 'tc', undefined, {}, print));
    expect(after.join('').trim()).toBe('');
  });

  it('on the root: lists the leaves and stops trusting one (audited)', async () => {
    await root.services.trustedClusters.remoteClusters.store.put({
      name: 'old-leaf',
      publicKey: 'ssh-ed25519 AAAA',
      created: new Date().toISOString(),
    });
    // The root's storage is the test app's; the CLI here runs on another data dir, so this
    // checks the kind against the root's backend directly.
    const kind = (await import('./cli-kinds.js')).remoteClusterCliKind;
    const ctx = { backend: root.backend, audit: root.audit } as never;
    expect((await kind.list(ctx, hostActor('test'))).map((rc) => rc.name)).toContain('old-leaf');
    await kind.remove!(ctx, 'old-leaf', hostActor('admin'));
    expect(await root.services.trustedClusters.remoteClusters.store.get('old-leaf')).toBeNull();
    const events = await root.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 50,
    });
    expect(events.events.find((e) => e.code === 'T7001I')).toMatchObject({
      user: 'admin',
      name: 'old-leaf',
    });
    await expect(kind.remove!(ctx, 'old-leaf', hostActor('admin'))).rejects.toThrow(/not found/);
  });
});
