import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCli } from '../../../main.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import { InventoryService } from '../nodes/inventory.service.js';
import { cliDataDir } from '../../../cli/cli-harness.testkit.js';
import { nodesAdd, nodesList, nodesRemove } from './nodes.commands.js';
import { waitForNode } from '../nodes/inventory.testkit.js';

const { state, run, failure } = cliDataDir();
/** The running server's inventory: what a `postern start` on the same data dir would see. */
let inventory: InventoryService;
const audit = { emit: async (event: object) => event } as unknown as AuditStore;
beforeAll(async () => {
  inventory = new InventoryService(state.server, audit);
  await inventory.start();
});
afterAll(() => inventory.close());

describe('postern nodes', () => {
  it('add registers an agentless host the running server sees, and says how to set it up', async () => {
    let id = '';
    const lines = await run(async (ctx, print) => {
      id = await nodesAdd(ctx, { name: 'db-1', addr: '127.0.0.25:22', labels: 'env=prod' }, print);
    });
    expect(lines[0]).toBe(`Added server db-1 (${id}) at 127.0.0.25:22.`);
    expect(lines.at(-1)).toMatch(/^ssh-ed25519 \S+ postern-user-ca@/);
    const node = await waitForNode(inventory, id);
    expect(node.spec).toMatchObject({ subKind: 'openssh', hostname: 'db-1', hostPublicKey: '' });
    expect(node.metadata.labels).toEqual({ env: 'prod' });

    expect(
      await failure((ctx, print) => nodesAdd(ctx, { name: 'db-2', addr: '127.0.0.25:22' }, print)),
    ).toMatch(/a server at 127.0.0.25:22 is registered already/);
    expect(await failure((ctx, print) => nodesAdd(ctx, { name: 'x', addr: 'x' }, print))).toMatch(
      /^addr: expected HOST:PORT/,
    );
    expect(
      await failure((ctx, print) => nodesAdd(ctx, { name: 'x', addr: 'x:1', labels: '=v' }, print)),
    ).toMatch(/^--labels/);
  });

  it('ls shows every server with its kind and status; rm removes one by name or id', async () => {
    const agentId = randomUUID();
    await inventory.heartbeat({
      id: agentId,
      hostname: 'agent-1',
      addr: '',
      subKind: 'postern',
      tunnel: true,
      os: 'linux',
      labels: { team: 'web' },
      cmdLabels: {},
      hostPublicKey: '',
    });
    let dbId = '';
    await run(async (ctx, print) => {
      dbId = await nodesAdd(ctx, { name: 'db-9', addr: 'db-9.internal:2222' }, print);
    });
    const listed = await run((ctx, print) => nodesList(ctx, print));
    expect(listed[0]).toMatch(/^ID\s+HOSTNAME\s+ADDRESS\s+KIND\s+STATUS\s+LABELS$/);
    expect(listed.find((line) => line.includes(agentId))).toMatch(
      /agent-1 +\(tunnel\) +agent +online +team=web$/,
    );
    expect(listed.find((line) => line.includes(dbId))).toMatch(
      // No running server has reached it: offline until its SSH banner answers.
      /db-9 +db-9\.internal:2222 +openssh +offline$/,
    );

    expect(await run((ctx, print) => nodesRemove(ctx, 'db-9', print))).toEqual([
      `Removed server db-9 (${dbId}).`,
    ]);
    await run((ctx, print) => nodesRemove(ctx, agentId, print));
    expect(await failure((ctx, print) => nodesRemove(ctx, 'db-9', print))).toMatch(
      /server db-9 not found/,
    );
    await vi.waitFor(() => expect(inventory.get(dbId)).toBeUndefined(), { timeout: 2000 });
  });

  it('wires the commands into the binary', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const cli = ['node', 'postern', 'nodes'];
      const flags = ['--data-dir', state.dir];
      await buildCli().parseAsync([
        ...cli,
        'add',
        '--name',
        'web-3',
        '--addr',
        '127.0.0.99:22',
        ...flags,
      ]);
      log.mockClear();
      await buildCli().parseAsync([...cli, 'ls', ...flags]);
      expect(log.mock.calls.flat().join('\n')).toMatch(/web-3 +127\.0\.0\.99:22 +openssh/);
      await buildCli().parseAsync([...cli, 'rm', 'web-3', ...flags]);
      expect(String(log.mock.calls.at(-1)?.[0])).toMatch(/^Removed server web-3/);
    } finally {
      log.mockRestore();
    }
  });
});
