import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mfaDeviceListSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { startCliSshWorld, type CliSshWorld } from '../../../testing/cli-ssh-world.testkit.js';

// An `mfa_device` lock reaches what `postern login` made with the device: the certificate
// carries the device it was proven with, so while the lock is in force the stock ssh through
// the proxy and the CLI's signed requests are refused, a live ssh session ends, and a new
// `postern login` with the device is refused; lifting the lock lets the same certificate in.
const admin = hostActor('test');
let world: CliSshWorld;
let phoneId: string;

beforeAll(async () => {
  world = await startCliSshWorld();
  const devices = await world.app.server.inject({
    url: '/v1/webapi/mfa/devices',
    headers: world.alice.headers,
  });
  phoneId = mfaDeviceListSchema.parse(devices.json()).find((d) => d.name === 'phone')!.id;
  await world.login();
}, 60_000);
afterAll(() => world?.stop());

const sshKeygen = (args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile('ssh-keygen', args, (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );

const lockPhone = () =>
  world.app.services.locks.create(
    { targets: { mfa_device: phoneId }, message: 'phone reported stolen' },
    admin,
  );
async function unlockAll(): Promise<void> {
  for (const lock of await world.app.services.locks.list(admin)) {
    await world.app.services.locks.remove(lock.metadata.name, admin);
  }
}

describe('an mfa_device lock and postern login', () => {
  it('names the device in the certificate postern login made', async () => {
    const profile = JSON.parse(
      await readFile(path.join(world.home, '.postern', 'profile.json'), 'utf8'),
    ) as { cert_path: string };
    const described = await new Promise<string>((resolve, reject) =>
      execFile('ssh-keygen', ['-L', '-f', profile.cert_path], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(described).toContain('postern-mfa-device@postern.dev');
    const { events } = await world.app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 864e5),
      limit: 1000,
    });
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'TC000I', user: 'alice', mfa_device_uuid: phoneId }),
    );
  });

  it('refuses ssh and signed requests while in force, and lets the same certificate in after', async () => {
    expect(await world.stock('ssh', ['root@web-1', 'echo ok'])).toMatchObject({
      code: 0,
      stdout: 'ok\n',
    });
    await lockPhone();
    try {
      const refused = await world.stock('ssh', ['root@web-1', 'echo ok']);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).toBe('');
      await expect(world.postern(['ls'])).rejects.toThrow(/locked: phone reported stolen/);
    } finally {
      await unlockAll();
    }
    expect(await world.stock('ssh', ['root@web-1', 'echo ok'])).toMatchObject({
      code: 0,
      stdout: 'ok\n',
    });
  });

  it('ends a live ssh command through the proxy, saying why', async () => {
    const ssh = world.live('echo started; sleep 25; echo finished');
    await vi.waitFor(() => expect(ssh.stdout).toContain('started'), { timeout: 15_000 });
    const started = Date.now();
    await lockPhone();
    try {
      expect(await ssh.exited).not.toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(ssh.stdout).not.toContain('finished');
      expect(ssh.stderr).toContain('Postern: locked: phone reported stolen');
    } finally {
      ssh.kill();
      await unlockAll();
    }
  });

  it('a per-session certificate names the device that answered its check; a lock on that device refuses it', async () => {
    const profile = JSON.parse(
      await readFile(path.join(world.home, '.postern', 'profile.json'), 'utf8'),
    ) as { key_path: string; cert_path: string };
    const loginCert = await readFile(profile.cert_path, 'utf8');
    const publicKey = await sshKeygen(['-y', '-f', profile.key_path]);
    // As mfa/session/certs issues it once a key (not the phone the login used) answered.
    const key = randomUUID();
    const issued = await world.app.context.identity.issuer.issue({
      user: 'alice',
      roles: ['ops'],
      publicKey: publicKey.trim(),
      requestedTtlMs: undefined,
      addr: undefined,
      session: { targets: ['root@web-1'], loginEndsAt: Date.now() + 600_000, device: key },
      mfaDevice: phoneId,
    });
    await writeFile(profile.cert_path, issued.cert);
    try {
      const described = await sshKeygen(['-L', '-f', profile.cert_path]);
      // ssh-keygen prints an extension it does not know as the hex of its string.
      const hex = Buffer.from(key).toString('hex');
      expect(described).toMatch(new RegExp(`postern-session-mfa-device@postern.dev .*${hex}`));
      await world.app.services.locks.create(
        { targets: { mfa_device: key }, message: 'key reported lost' },
        admin,
      );
      const refused = await world.stock('ssh', ['-o', 'LogLevel=INFO', 'root@web-1', 'echo ok']);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('locked: key reported lost');
      // So is a request it signs (a tunnel's per-session certificate opens it so).
      await expect(world.postern(['ls'])).rejects.toThrow(/locked: key reported lost/);
    } finally {
      await unlockAll();
      await writeFile(profile.cert_path, loginCert);
    }
    const { events } = await world.app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 864e5),
      limit: 1000,
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        code: 'TC000I',
        mfa_device_uuid: phoneId,
        session_mfa_device_uuid: key,
      }),
    );
  });

  it('refuses a new postern login with the device', async () => {
    await lockPhone();
    try {
      await expect(world.login()).rejects.toThrow(
        /this MFA device is locked: phone reported stolen/,
      );
    } finally {
      await unlockAll();
    }
  });
});
