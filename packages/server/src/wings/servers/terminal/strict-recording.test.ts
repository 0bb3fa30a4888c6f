import { rename, rm, writeFile } from 'node:fs/promises';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import type { TestApp } from '../../../testing/app-harness.testkit.js';
import { startSshNodeApp, type SshNodeApp } from '../../../testing/ssh-node-app.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';

// record_session: strict refuses to start a session whose recording could not be written (here:
// the recordings directory is gone, a file in its place), before anything reaches the node;
// best_effort starts it anyway.
let started: SshNodeApp;
let app: TestApp;
let baseUrl: string;
let nodeId: string;

beforeAll(async () => {
  started = await startSshNodeApp();
  ({ app, baseUrl, nodeId } = started);
  const admin = hostActor('test');
  for (const [name, mode] of [
    ['recorded-strictly', 'strict'],
    ['recorded-if-possible', 'best_effort'],
  ] as const) {
    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name },
        spec: {
          options: { record_session: { ssh: mode } },
          allow: { node_labels: { env: 'test' }, logins: ['root'] },
        },
      }),
      admin,
    );
  }
}, 60_000);

afterAll(() => started?.close());

const shell = async (role: string) =>
  openTerminal({
    baseUrl,
    headers: await app.signIn([role], `user-of-${role}`),
    params: { term: { w: 80, h: 24 }, server_id: nodeId, login: 'root' } as never,
  });

describe('record_session: strict', () => {
  it('refuses a session it could not record, and starts it once storage is back', async () => {
    const dir = app.config.recordings.dir;
    await rename(dir, `${dir}.away`);
    await writeFile(dir, 'not a directory');
    try {
      const refused = await shell('recorded-strictly');
      await refused.closed;
      const errors = refused.frames.filter((f) => f.type === T.error).map((f) => f.payload);
      expect(errors.join('\n')).toContain(
        'this session must be recorded (record_session: strict), but the recordings directory cannot be written (ENOTDIR)',
      );
      const lenient = await shell('recorded-if-possible');
      expect(lenient.response.status).toBe('ok');
      lenient.close();
      await lenient.closed;
    } finally {
      await rm(dir, { force: true });
      await rename(`${dir}.away`, dir);
    }
    const recorded = await shell('recorded-strictly');
    expect(recorded.response.status).toBe('ok');
    await recorded.waitForOutput(/[#$] $/m);
    recorded.close();
    await recorded.closed;
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 100,
    });
    expect(
      events.find((e) => e.code === 'T1006W' && e.user === 'user-of-recorded-strictly'),
    ).toMatchObject({
      reason: expect.stringContaining('record_session: strict'),
    });
  });
});
