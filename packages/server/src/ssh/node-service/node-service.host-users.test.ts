import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../channel.testkit.js';
import type { HostUserGrant } from '../host-user-extension.js';
import { managedGroup } from './host-users.js';
import { nodeServiceFixture } from './node-service.testkit.js';

// The node service makes OS users for logins that have none, as the certificate's grant says,
// on this machine (the tests run as root, as a node service does): real useradd, groups, sudoers.

const { certificate, login, logs } = nodeServiceFixture();
const made: string[] = [];
const fresh = () => {
  const name = `pht-${randomBytes(4).toString('hex')}`;
  made.push(name);
  return name;
};
const group = `pht-grp-${randomBytes(3).toString('hex')}`;

afterAll(() => {
  for (const name of made) {
    try {
      execFileSync('userdel', ['--remove', name], { stdio: 'ignore' });
    } catch {
      // gone already
    }
    rmSync(`/etc/sudoers.d/postern-${name}`, { force: true });
  }
  try {
    execFileSync('groupdel', [group], { stdio: 'ignore' });
  } catch {
    // never made (a test failed before its first login)
  }
});

const passwd = (name: string) => {
  try {
    return execFileSync('getent', ['passwd', name], { encoding: 'utf8' });
  } catch {
    return '';
  }
};
const grant = (mode: HostUserGrant['mode'], sudoers: string[] = []): HostUserGrant => ({
  mode,
  groups: [group],
  sudoers,
});

async function eventually(check: () => boolean, what: string) {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 100));
  expect(check(), what).toBe(true);
}

describe('host users', () => {
  it('makes the user with its groups and sudoers lines, and keeps it with keep', async () => {
    const name = fresh();
    const client = await login(
      certificate({ logins: [name], hostUser: grant('keep', ['ALL=(ALL) NOPASSWD: ALL']) }),
      { user: name },
    );
    try {
      const { stdout } = await runCommand(client, 'id -un; id -Gn; echo "$HOME"; pwd');
      const [user, groups, home, cwd] = stdout.trim().split('\n');
      expect(user).toBe(name);
      expect(groups!.split(' ')).toEqual(expect.arrayContaining([managedGroup, group]));
      expect(home).toBe(`/home/${name}`);
      expect(cwd).toBe(`/home/${name}`);
    } finally {
      client.end();
    }
    // sudo is installed by scripts/ensure-test-deps.sh, so visudo checks the file.
    expect(readFileSync(`/etc/sudoers.d/postern-${name}`, 'utf8')).toBe(
      `${name} ALL=(ALL) NOPASSWD: ALL\n`,
    );
    // keep: still there after the session.
    await new Promise((r) => setTimeout(r, 500));
    expect(passwd(name)).toContain(`${name}:`);
  });

  it('writes no sudoers file that visudo refuses, and the login still works', async () => {
    const name = fresh();
    const cert = certificate({ logins: [name], hostUser: grant('keep', ['NOT ((( SUDOERS']) });
    const client = await login(cert, { user: name });
    try {
      expect((await runCommand(client, 'id -un')).stdout).toBe(`${name}\n`);
    } finally {
      client.end();
    }
    expect(existsSync(`/etc/sudoers.d/postern-${name}`)).toBe(false);
    expect(logs.some((line) => line.startsWith('host user sudoers refused'))).toBe(true);
  });

  it('deletes an insecure-drop user, home and all, when its last connection ends', async () => {
    const name = fresh();
    const cert = certificate({ logins: [name], hostUser: grant('insecure-drop') });
    const one = await login(cert, { user: name });
    const two = await login(cert, { user: name });
    expect((await runCommand(one, 'id -un')).stdout).toBe(`${name}\n`);
    one.end();
    await new Promise((r) => setTimeout(r, 500));
    // The second connection still holds it.
    expect(passwd(name)).toContain(`${name}:`);
    expect((await runCommand(two, 'touch ~/mark && echo ok')).stdout).toBe('ok\n');
    two.end();
    await eventually(() => passwd(name) === '', 'the user to be deleted');
    expect(existsSync(`/home/${name}`)).toBe(false);
    // Logged once its sudoers file is gone too, a moment after userdel.
    await eventually(
      () => logs.some((line) => line.startsWith('host user deleted') && line.includes(name)),
      'the deletion to be logged',
    );
  });

  it('never touches a user it did not make, and makes none without the grant', async () => {
    // root exists and is not in the managed group: logging in with a drop grant leaves it be.
    const rootCert = certificate({ logins: ['root'], hostUser: grant('insecure-drop') });
    const client = await login(rootCert, { user: 'root' });
    expect((await runCommand(client, 'id -un')).stdout).toBe('root\n');
    client.end();
    await new Promise((r) => setTimeout(r, 500));
    expect(passwd('root')).toContain('root:');
    expect(execFileSync('id', ['-Gn', 'root'], { encoding: 'utf8' })).not.toContain(group);

    const name = fresh();
    await expect(login(certificate({ logins: [name] }), { user: name })).rejects.toThrow();
    expect(passwd(name)).toBe('');
  });
});
