import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { apiPaths, terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import type { OpenSshRunner } from '../../../cli/login/ssh-commands.js';
import { startCliSshWorld, type CliSshWorld } from '../../../testing/cli-ssh-world.testkit.js';
import { signedHeaders } from '../../../testing/signed-request.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';
import { generateEd25519Key } from '../../../ssh/keys.js';
import { totpCode } from '../../../testing/totp.testkit.js';
import { createSessionMfaRole } from '../../../testing/roles.testkit.js';

// require_session_mfa with plain ssh: `postern ssh` asks for an authenticator code and gets a
// one-minute certificate that opens only the session asked for; the stock ssh without it is
// refused. The real ssh, through the proxy, to a real sshd.

let world: CliSshWorld;
let codesUsed = 0;

beforeAll(async () => {
  world = await startCliSshWorld();
  const { app } = world;
  await createSessionMfaRole(app);
  await world.login();
  await app.services.users.update({ name: 'alice', roles: ['ops', 'checked'] }, 'test');
}, 60_000);

afterAll(() => world?.stop());

/**
 * A code for a step the server has not taken: codes work once each, and the server accepts the
 * next step's too, so the clock moves a step for each.
 */
function nextCode(): string {
  if (codesUsed++ > 0) world.app.clock.advance(30_000);
  return totpCode(world.alice.totpSecret!, world.app.clock.now() + 30_000);
}

/** The real ssh with the arguments postern built, its output captured. */
function realSsh(ran: { args: string[]; stdout: string; stderr: string }[]): OpenSshRunner {
  return (program, args) =>
    new Promise((resolve) =>
      execFile(
        program,
        ['-o', 'BatchMode=yes', ...args],
        { timeout: 30_000 },
        (error, out, err) => {
          ran.push({ args, stdout: String(out), stderr: String(err) });
          resolve(error ? Number((error as { code?: number }).code ?? 1) : 0);
        },
      ),
    );
}

describe('per-session MFA for plain ssh', () => {
  it('the stock ssh with the login certificate alone is refused, saying why', async () => {
    const result = await world.stock('ssh', ['-o', 'LogLevel=INFO', 'root@web-1', 'echo ran']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('ran');
    expect(result.stderr).toContain('require_session_mfa');
  });

  it('postern ssh asks for a code, and the session opens with the one-minute certificate', async () => {
    const ran: { args: string[]; stdout: string; stderr: string }[] = [];
    await world.postern(['ssh', 'root@web-1', 'echo "checked-$((6*7))"'], {
      answers: [nextCode()],
      runOpenSsh: realSsh(ran),
    });
    expect(ran).toHaveLength(1);
    expect(ran[0]!.stdout).toContain('checked-42');
    expect(ran[0]!.args).toEqual(
      expect.arrayContaining([
        '-o',
        expect.stringMatching(/^CertificateFile=.*session-cert\.pub$/),
      ]),
    );
    const issued = (
      await world.app.audit.search({
        from: new Date(0),
        to: new Date(Date.now() + 60_000),
        limit: 100,
      })
    ).events.find((event) => event.code === 'TC000I' && event.session_mfa !== undefined);
    // It names the device that answered the check: an mfa_device lock on it refuses it.
    const [phone] = (await world.app.services.users.store.credentials('alice')).devices;
    expect(issued).toMatchObject({
      user: 'alice',
      ttl_ms: 60_000,
      session_mfa_device_uuid: phone!.id,
    });
  });

  it('postern scp asks for a code too, and copies with the certificate', async () => {
    const ran: { args: string[]; stdout: string; stderr: string }[] = [];
    const local = path.join(world.home, 'copied-hostname');
    await world.postern(['scp', 'root@web-1:/etc/hostname', local], {
      answers: [nextCode()],
      runOpenSsh: realSsh(ran),
    });
    expect(ran[0]!.stderr).toBe('');
    expect((await readFile(local, 'utf8')).trim()).toBe(
      (await readFile('/etc/hostname', 'utf8')).trim(),
    );
  });

  it('a wrong code runs nothing', async () => {
    const ran: { args: string[]; stdout: string; stderr: string }[] = [];
    await expect(
      world.postern(['ssh', 'root@web-1', 'echo ran'], {
        answers: ['00000000'],
        runOpenSsh: realSsh(ran),
      }),
    ).rejects.toThrow(/the MFA check for this session failed/);
    expect(ran).toEqual([]);
  });

  it('the certificate opens only the session it names', async () => {
    const { app } = world;
    // Never dialled: the proxy refuses the login before it would reach the node.
    await app.services.inventory.addOpenSsh(
      { name: 'web-2', addr: `127.0.0.2:${world.sshd.port}`, labels: {} },
      hostActor('test'),
    );
    // A certificate for web-1, tried for web-2: ssh is given it, and the proxy refuses.
    const ran: { args: string[]; stdout: string; stderr: string }[] = [];
    await world.postern(['ssh', 'root@web-1', 'true'], {
      answers: [nextCode()],
      runOpenSsh: async (program, args) => {
        const certificate = args[args.indexOf('-o') + 1]!;
        const web2 = `root@web-2.${app.config.clusterName}`;
        const swapped = args.map((arg) => (arg === 'root@web-1' ? web2 : arg));
        const code = await realSsh(ran)(program, ['-o', 'LogLevel=INFO', ...swapped]);
        expect(certificate).toMatch(/^CertificateFile=/);
        return code;
      },
    });
    expect(ran[0]!.stderr).toContain('require_session_mfa');
    expect(ran[0]!.stdout).toBe('');
  });

  it('postern join asks for a code, and joins with a certificate naming the session', async () => {
    // alice's own browser terminal on web-1, opened after its own check.
    const owner = await openTerminal({
      baseUrl: world.webUrl,
      headers: world.alice.headers,
      params: { term: { w: 80, h: 24 }, server_id: 'web-1', login: 'root' },
    });
    await owner.waitFor(() => owner.frames.some((f) => f.type === T.mfaChallenge), 'a challenge');
    owner.send(T.mfaChallenge, JSON.stringify({ totp_code: nextCode() }));
    await owner.waitForOutput(/[#$] $/m);
    const sidFrame = owner.frames.find((f) => f.type === T.sessionData)!;
    const sid = (JSON.parse(sidFrame.payload) as { session: { id: string } }).session.id;
    const port = String(world.proxy.address.port);
    try {
      // The login's certificate alone: the proxy refuses the join and says why.
      const plain = await world.stock('ssh', ['-tt', '-p', port, 'alice@127.0.0.1', `join ${sid}`]);
      expect(plain.stdout + plain.stderr).toContain('require_session_mfa');

      let output = '';
      await world.postern(['join', sid], {
        answers: [nextCode()],
        runOpenSsh: (program, args) =>
          new Promise((resolve) => {
            // -tt: a terminal even though the test's stdin is none; leave once joined.
            const child = spawn(program, ['-o', 'BatchMode=yes', '-tt', ...args]);
            const seen = (chunk: Buffer) => {
              output += chunk.toString();
              if (output.includes(`joined session ${sid}`)) child.kill();
            };
            child.stdout.on('data', seen);
            child.stderr.on('data', seen);
            child.on('close', (code) => resolve(code ?? 1));
          }),
      });
      expect(output).toContain(`joined session ${sid}`);
    } finally {
      owner.close();
    }
  });

  describe('POST mfa/session/certs', () => {
    const post = (payload: object, headers: Record<string, string> = {}) =>
      world.app.server.inject({
        method: 'POST',
        url: apiPaths.sessionMfaCerts,
        payload,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const signed = (payload: object) =>
      post(
        payload,
        signedHeaders(world.app, 'alice', {
          method: 'POST',
          path: apiPaths.sessionMfaCerts,
          body: JSON.stringify(payload),
        }),
      );
    const pubKey = generateEd25519Key().publicKey;

    it('needs a signed request (401)', async () => {
      const res = await post({ targets: [{ node: 'web-1', login: 'root' }], pub_key: pubKey });
      expect(res.statusCode).toBe(401);
    });

    it('says a check is needed without a code, hides servers the roles do not reach, refuses bad input', async () => {
      const needed = await signed({ targets: [{ node: 'web-1', login: 'root' }], pub_key: pubKey });
      expect(needed.json()).toEqual({ required: true });
      const hidden = await signed({
        targets: [{ node: 'nowhere', login: 'root' }],
        pub_key: pubKey,
      });
      expect(hidden.statusCode).toBe(404);
      const bad = await signed({ targets: [], pub_key: pubKey });
      expect(bad.statusCode).toBe(400);
    });
  });
});
