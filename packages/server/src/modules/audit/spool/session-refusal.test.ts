import { terminalMessageTypes as T } from '@postern/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openSshClient } from '../../../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../../../testing/ssh-proxy.testkit.js';
import { holdSqliteLock, type HeldSqliteLock } from '../../../testing/sqlite-lock.testkit.js';
import { startSshd } from '../../../testing/sshd.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import type { AuditOnFailure } from './spooled-audit-store.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An app whose audit file is locked by another process and whose small spool is full. */
async function appWithFullSpool(onFailure: AuditOnFailure) {
  const logged: string[] = [];
  const app: TestApp = await createTestApp({
    auditSpool: {
      maxBytes: 4096,
      onFailure,
      retry: { firstDelayMs: 20, maxDelayMs: 100 },
      log: (level, message) => logged.push(`${level}: ${message}`),
    },
  });
  cleanups.push(() => app.close());
  const baseUrl = (await app.listenOnLoopback()).baseUrl;
  const sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  cleanups.push(() => sshd.stop());
  const node = await app.services.inventory.addOpenSsh(
    { name: 'audited-host', addr: `127.0.0.1:${sshd.port}`, labels: {} },
    hostActor('test'),
  );
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'root-access' },
      spec: { allow: { node_labels: { '*': '*' }, logins: ['root'] } },
    }),
    hostActor('test'),
  );
  // A user record too: the SSH proxy takes certificates only of users that exist.
  await app.services.users.create({ name: 'alice', roles: ['root-access'] }, 'test');
  const alice = await app.signIn(['root-access'], 'alice');
  const auditPath = app.config.audit.type === 'sqlite' ? app.config.audit.path : '';
  const lock: HeldSqliteLock = await holdSqliteLock(auditPath);
  cleanups.push(() => lock.release());
  for (let n = 0; n < 100; n++) {
    const stored = await app.audit
      .emit({ event: 'exec', code: 'T3002I', user: 'filler', n, pad: 'x'.repeat(200) })
      .then(
        () => true,
        () => false,
      );
    if (!stored) break;
  }
  const shell = () =>
    openTerminal({
      baseUrl,
      headers: alice,
      params: { server_id: node.metadata.name, login: 'root', term: { w: 80, h: 24 } } as never,
    });
  return { app, lock, shell, logged };
}

describe('a full audit spool', () => {
  it('refuse (the default): new terminal (with the reason) and SSH sessions are refused until it recovers', async () => {
    const { app, lock, shell } = await appWithFullSpool('refuse');
    const refused = await shell();
    await refused.closed;
    expect(refused.frames.find((f) => f.type === T.error)?.payload).toBe(
      'audit storage is unavailable; new sessions are refused until it recovers',
    );

    // The SSH proxy goes through the same door.
    const proxy = await startTestSshProxy(app);
    cleanups.push(() => proxy.stop());
    const ssh = await openSshClient({
      ca: app.services.ca,
      user: 'alice',
      roles: ['root-access'],
      logins: ['root'],
      proxyPort: proxy.port,
    });
    cleanups.push(() => ssh.remove());
    const viaSsh = await ssh.run('ssh', ['root@audited-host', 'echo ran']);
    // The reason goes to the client as an auth banner, which the test client does not print.
    expect(viaSsh).toMatchObject({ code: 255, stdout: '' });
    expect(viaSsh.stderr).toMatch(/Permission denied/);

    await lock.release();
    const giveUp = Date.now() + 10_000;
    while ((app.audit as { degraded?: boolean }).degraded && Date.now() < giveUp) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const allowed = await shell();
    expect(allowed.response.status).toBe('ok');
    allowed.close();
    expect(await ssh.run('ssh', ['root@audited-host', 'echo ran'])).toMatchObject({
      code: 0,
      stdout: 'ran\n',
    });
  }, 60_000);

  it('continue: sessions run, and the loss is logged', async () => {
    const { shell, logged } = await appWithFullSpool('continue');
    expect(logged).toContain('error: audit spool is full: event LOST (audit.on_failure: continue)');
    const client = await shell();
    expect(client.response.status).toBe('ok');
    await client.waitForOutput(/[#$] $/m);
    client.type('echo unaudited-$((40+2))\r');
    await client.waitForOutput('unaudited-42');
    client.close();
  }, 60_000);
});
