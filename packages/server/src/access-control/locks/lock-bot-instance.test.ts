import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { botStart } from '../../cli/login/bot-start.js';
import type { BotsService } from '../../identity/bots/bots.service.js';
import { botsOf } from '../../testing/bots.testkit.js';
import { POSTERN_BOT_INSTANCE_EXTENSION } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { startCliSshWorld, type CliSshWorld } from '../../testing/cli-ssh-world.testkit.js';
import { hostActor } from '../access/actor.js';

// A `bot_instance` lock names one running copy of a bot: that copy's certificate is refused by
// the SSH proxy and for signed calls (its renewal among them), and its live ssh command ends
// saying why, while another copy of the same bot goes on. Two copies join with `postern bot
// start`, each in its own destination; the stock OpenSSH client reaches a real sshd through the
// proxy with each copy's ssh_config.
const admin = hostActor('test');
let world: CliSshWorld;
let bots: BotsService;
const copies: { destination: string; instance: string }[] = [];

/** `postern bot start --oneshot` in `destination`: a join with `token`, or a renewal. */
const start = (destination: string, token?: string) =>
  botStart(
    { destination, oneshot: true, ...(token ? { proxy: world.webUrl, token } : {}) },
    {
      env: { HOME: world.home },
      io: { input: process.stdin, output: process.stderr },
      print: () => undefined,
    },
  );

async function instanceIn(destination: string): Promise<string> {
  const profile = JSON.parse(await readFile(path.join(destination, 'profile.json'), 'utf8'));
  const cert = parseCertificate((await readFile(profile.cert_path, 'utf8')).trim());
  return cert.extensions[POSTERN_BOT_INSTANCE_EXTENSION]!;
}

const configOf = (destination: string) => path.join(destination, 'ssh_config');

beforeAll(async () => {
  world = await startCliSshWorld();
  bots = botsOf(world.app);
  const { token } = await bots.create({ name: 'runner', roles: ['ops'] }, 'admin');
  const second = await bots.newToken('runner', undefined, 'admin');
  for (const joinToken of [token!.token, second.token]) {
    const destination = await mkdtemp(path.join(tmpdir(), 'postern-bot-'));
    await start(destination, joinToken);
    copies.push({ destination, instance: await instanceIn(destination) });
  }
}, 60_000);

afterAll(async () => {
  await world?.stop();
  for (const { destination } of copies) await rm(destination, { recursive: true, force: true });
});

describe('a bot_instance lock', () => {
  it('ends the locked copy’s live ssh command and refuses it, while the other copy goes on', async () => {
    const [locked, other] = copies as [(typeof copies)[0], (typeof copies)[0]];
    expect(locked.instance).not.toBe(other.instance);
    const ssh = spawn('ssh', [
      '-F',
      configOf(locked.destination),
      '-o',
      'BatchMode=yes',
      'root@web-1',
      'echo started; sleep 25; echo finished',
    ]);
    let stdout = '';
    let stderr = '';
    ssh.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    ssh.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => ssh.once('exit', resolve));
    await vi.waitFor(() => expect(stdout).toContain('started'), { timeout: 15_000 });

    const started = Date.now();
    const lock = await world.app.services.locks.create(
      { targets: { bot_instance: locked.instance }, message: 'runner 7 compromised' },
      admin,
    );
    try {
      expect(await exited).not.toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(stdout).not.toContain('finished');
      expect(stderr).toContain('Postern: locked: runner 7 compromised');

      const refused = await world.stock(
        'ssh',
        ['root@web-1', 'echo ok'],
        '',
        configOf(locked.destination),
      );
      expect(refused).toMatchObject({ stdout: '' });
      expect(refused.code).not.toBe(0);
      // Its renewal is a signed call on the locked certificate: refused, so the copy cannot
      // outlive the lock with a fresh certificate.
      await expect(start(locked.destination)).rejects.toThrow(/locked: runner 7 compromised/);

      // The other copy of the same bot renews and reaches the server.
      await start(other.destination);
      expect(await instanceIn(other.destination)).toBe(other.instance);
      const ok = await world.stock(
        'ssh',
        ['root@web-1', 'echo ok'],
        '',
        configOf(other.destination),
      );
      expect(ok).toMatchObject({ code: 0, stdout: 'ok\n' });
    } finally {
      ssh.kill();
      await world.app.services.locks.remove(lock.metadata.name, admin);
    }
    // Lifted: the copy renews again.
    await start(locked.destination);
    const back = await world.stock(
      'ssh',
      ['root@web-1', 'echo ok'],
      '',
      configOf(locked.destination),
    );
    expect(back).toMatchObject({ code: 0, stdout: 'ok\n' });
  });

  it('names an instance by its id only', async () => {
    await expect(
      world.app.services.locks.create({ targets: { bot_instance: 'runner' }, message: '' }, admin),
    ).rejects.toThrow(/a bot instance is named by its id \(a UUID\), as Manage Bots lists it/);
  });
});
