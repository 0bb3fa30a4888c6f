import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { addRequestCommands } from '../../../cli/requests/requests.commands.js';
import { approvedRequest } from '../../../testing/access-requests.testkit.js';
import { startCliSshWorld, type CliSshWorld } from '../../../testing/cli-ssh-world.testkit.js';

// An `access_request` lock reaches certificates: `postern request assume` puts the request in
// the login's certificate, so while the lock stands that certificate is refused by the SSH proxy
// and for signed requests, and a live ssh command on it ends saying why. A new `postern login`
// (a certificate without the request) goes on, as in the reference: the lock is on the credential.
const admin = hostActor('test');
let world: CliSshWorld;
let requestId: string;

beforeAll(async () => {
  world = await startCliSshWorld();
  await world.login();
  requestId = await approvedRequest(world.app, 'alice', ['auditor']);
}, 60_000);
afterAll(() => world?.stop());

/** `postern request <args>` as alice, with the world's home. */
async function request(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command('postern').exitOverride();
  addRequestCommands(program, {
    env: { POSTERN_HOME: path.join(world.home, '.postern'), HOME: world.home, USER: 'alice' },
    print: (line) => lines.push(line),
  });
  await program.parseAsync(['node', 'postern', 'request', ...args]);
  return lines;
}

const lockRequest = () =>
  world.app.services.locks.create(
    { targets: { access_request: requestId }, message: 'request revoked' },
    admin,
  );
async function unlockAll(): Promise<void> {
  for (const lock of await world.app.services.locks.list(admin)) {
    await world.app.services.locks.remove(lock.metadata.name, admin);
  }
}

describe('an access_request lock and certificates', () => {
  it('ends a live ssh command on a certificate that assumed it, and refuses the certificate', async () => {
    await request(['assume', requestId]);
    const ssh = world.live('echo started; sleep 25; echo finished');
    await vi.waitFor(() => expect(ssh.stdout).toContain('started'), { timeout: 15_000 });
    const started = Date.now();
    await lockRequest();
    try {
      expect(await ssh.exited).not.toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(ssh.stdout).not.toContain('finished');
      expect(ssh.stderr).toContain('Postern: locked: request revoked');
      const refused = await world.stock('ssh', ['root@web-1', 'echo ok']);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).toBe('');
      // Signed with the same certificate: dropping the request is refused too.
      await expect(request(['drop'])).rejects.toThrow(/locked: request revoked/);
      // Signed in again, without the request: the user's own access goes on.
      await world.login();
      expect(await world.stock('ssh', ['root@web-1', 'echo ok'])).toMatchObject({
        code: 0,
        stdout: 'ok\n',
      });
      await expect(request(['assume', requestId])).rejects.toThrow(
        `access request ${requestId} is locked: request revoked`,
      );
    } finally {
      ssh.kill();
      await unlockAll();
    }
    await request(['assume', requestId]);
    expect(await world.stock('ssh', ['root@web-1', 'echo ok'])).toMatchObject({
      code: 0,
      stdout: 'ok\n',
    });
  });
});
