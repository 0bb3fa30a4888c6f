import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import type { BotsService } from '../../identity/bots/bots.service.js';
import { botsOf } from '../../testing/bots.testkit.js';
import { POSTERN_BOT_GENERATION_EXTENSION } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { startFakeCiTokenIssuer } from '../../testing/ci-token-issuer.testkit.js';
import { startCliSshWorld, type CliSshWorld } from '../../testing/cli-ssh-world.testkit.js';
import { botStart } from './bot-start.js';

// A CI job's path: an admin makes a bot, the job runs `postern bot start` with the token, and
// the stock OpenSSH client reaches a real sshd as the bot through the proxy.
let world: CliSshWorld;
let bots: BotsService;
let destination: string;

beforeAll(async () => {
  world = await startCliSshWorld();
  bots = botsOf(world.app);
  destination = await mkdtemp(path.join(tmpdir(), 'postern-bot-'));
}, 60_000);

afterAll(async () => {
  await world?.stop();
  if (destination) await rm(destination, { recursive: true, force: true });
});

/** The stock ssh with only the bot's ssh_config. */
const botSsh = (args: string[]) =>
  world.stock('ssh', args, '', path.join(destination, 'ssh_config'));

async function generation(): Promise<number> {
  const profile = JSON.parse(await readFile(path.join(destination, 'profile.json'), 'utf8'));
  const cert = parseCertificate((await readFile(profile.cert_path, 'utf8')).trim());
  return Number(cert.extensions[POSTERN_BOT_GENERATION_EXTENSION]);
}

const deps = (extra: Partial<Parameters<typeof botStart>[1]> = {}) => {
  const lines: string[] = [];
  return {
    lines,
    deps: {
      env: { HOME: world.home },
      io: { input: process.stdin, output: process.stderr },
      print: (line: string) => lines.push(line),
      ...extra,
    },
  };
};

describe('postern bot start', () => {
  it('joins with the token once, and the stock ssh acts as the bot through its ssh_config', async () => {
    const { token } = await bots.create({ name: 'ci', roles: ['ops'] }, 'admin');
    const lines = await world.postern([
      'bot',
      'start',
      '--proxy',
      world.webUrl,
      '--token',
      token!.token,
      '--destination',
      destination,
      '--oneshot',
    ]);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^Bot identity bot-ci in ${destination}, valid until `),
    );
    expect(await generation()).toBe(1);
    const result = await botSsh(['root@web-1', 'echo "bot on $(hostname)"']);
    expect(result.stderr).not.toMatch(/authenticity|WARNING/);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^bot on /) });
    const sessions = await world.app.audit.search({
      from: new Date(0),
      to: new Date(world.app.clock.now() + 60_000),
      limit: 500,
      eventTypes: ['session.start'],
    });
    expect(sessions.events.map((event) => event.user)).toContain('bot-ci');
  });

  it('renews the identity it finds on the next start, without a token', async () => {
    const { deps: run, lines } = deps();
    await botStart({ destination, oneshot: true }, run);
    expect(lines.at(-1)).toMatch(/^Bot identity bot-ci/);
    expect(await generation()).toBe(2);
    expect((await botSsh(['root@web-1', 'true'])).code).toBe(0);
  });

  it('says what to pass when the destination holds no identity', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'postern-bot-'));
    try {
      await expect(botStart({ destination: empty, oneshot: true }, deps().deps)).rejects.toThrow(
        /no live bot identity .* pass --proxy and the --token/,
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('keeps renewing at two thirds of each certificate’s life until stopped', async () => {
    const stop = new AbortController();
    const waits: number[] = [];
    const { deps: run, lines } = deps({
      signal: stop.signal,
      pause: async (ms: number) => {
        waits.push(ms);
        if (waits.length === 3) stop.abort();
        return !stop.signal.aborted;
      },
    });
    const before = await generation();
    await botStart({ destination, ttl: '30m' }, run);
    // The start renews, then two renewals in the loop; the third wait is cut short.
    expect(await generation()).toBe(before + 3);
    expect(lines.filter((line) => line.startsWith('Renewed: valid until '))).toHaveLength(2);
    for (const ms of waits) {
      expect(ms).toBeGreaterThan(18 * 60_000);
      expect(ms).toBeLessThanOrEqual(21 * 60_000);
    }
  });

  it("stops with the proxy's reason once the bot is locked", async () => {
    await world.app.services.locks.create(
      { targets: { user: 'bot-ci' }, message: 'rotating CI secrets' },
      hostActor('test'),
    );
    const { deps: run } = deps({
      pause: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return true;
      },
    });
    await expect(botStart({ destination }, run)).rejects.toThrow(/locked/);
  });
});

describe('postern bot start with a CI job’s ID token', () => {
  it('joins as the bot named by --bot, from a file or an environment variable', async () => {
    const ci = await startFakeCiTokenIssuer();
    const jobDir = await mkdtemp(path.join(tmpdir(), 'postern-ci-'));
    try {
      const claims = { repository: 'acme/deploy' };
      const oidc = { issuer: ci.issuer, audience: 'postern', claims };
      await bots.create({ name: 'gha', roles: ['ops'], oidc }, 'admin');
      const tokenFile = path.join(jobDir, 'id-token');
      await writeFile(tokenFile, `${await ci.mint(claims, { audience: 'postern' })}\n`);
      const common = ['bot', 'start', '--proxy', world.webUrl, '--bot', 'gha', '--oneshot'];
      const fromFile = path.join(jobDir, 'from-file');
      const lines = await world.postern([
        ...common,
        '--oidc-token-file',
        tokenFile,
        '--destination',
        fromFile,
      ]);
      expect(lines.at(-1)).toMatch(/^Bot identity bot-gha in /);
      const { deps: run } = deps();
      const fromEnv = path.join(jobDir, 'from-env');
      await botStart(
        {
          destination: fromEnv,
          proxy: world.webUrl,
          bot: 'gha',
          oidcTokenEnv: 'CI_ID_TOKEN',
          oneshot: true,
        },
        {
          ...run,
          env: { ...run.env, CI_ID_TOKEN: await ci.mint(claims, { audience: 'postern' }) },
        },
      );
      const profile = JSON.parse(await readFile(path.join(fromEnv, 'profile.json'), 'utf8'));
      expect(profile.user).toBe('bot-gha');
      // The same token a second time is refused by the proxy, with its reason.
      await expect(
        botStart(
          {
            destination: path.join(jobDir, 'again'),
            proxy: world.webUrl,
            bot: 'gha',
            oidcTokenFile: tokenFile,
            oneshot: true,
          },
          run,
        ),
      ).rejects.toThrow(/used already/);
      await expect(
        botStart(
          {
            destination: path.join(jobDir, 'nobot'),
            proxy: world.webUrl,
            oidcTokenFile: tokenFile,
          },
          run,
        ),
      ).rejects.toThrow(/pass --bot NAME/);
    } finally {
      await ci.close();
      await rm(jobDir, { recursive: true, force: true });
    }
  });
});
