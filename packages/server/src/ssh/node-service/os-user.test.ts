import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../channel.testkit.js';
import { nodeServiceFixture } from './node-service.testkit.js';
import { resolveLoginAccount } from './os-user.js';

const { certificate, login } = nodeServiceFixture();

/** Some local user other than root with a real shell, if this machine has one. */
const otherUser = readFileSync('/etc/passwd', 'utf8')
  .split('\n')
  .map((line) => line.split(':'))
  .find(
    ([name, , uid, , , home, shell]) =>
      name && uid !== '0' && home && /\/(ba)?sh$/.test(shell ?? ''),
  );

describe('OS accounts for logins', () => {
  afterEach(() => vi.restoreAllMocks());

  it('as root, maps any local user through getent and refuses unknown or odd names', async () => {
    expect(await resolveLoginAccount('root')).toEqual({
      ok: true,
      account: {
        login: 'root',
        uid: 0,
        gid: 0,
        home: '/root',
        shell: expect.stringMatching(/sh$/),
      },
    });
    expect(await resolveLoginAccount('no-such-user-xyz')).toEqual({
      ok: false,
      reason: 'no OS user no-such-user-xyz on this host',
    });
    expect(await resolveLoginAccount('-rf')).toMatchObject({ ok: false, reason: /invalid login/ });
  });

  it('not as root, allows only the service’s own user, with a clear reason', async () => {
    vi.spyOn(process, 'getuid').mockReturnValue(4242);
    const self = userInfo().username;
    expect(await resolveLoginAccount(self)).toMatchObject({ ok: true, account: { login: self } });
    expect(await resolveLoginAccount('someone-else')).toEqual({
      ok: false,
      reason: `this node service runs as ${self}, not root, so it can only log in as ${self}`,
    });
  });

  it('runs the login shell from the passwd entry (nologin for nobody), in / when home is missing', async () => {
    const client = await login(certificate({ logins: ['nobody'] }), { user: 'nobody' });
    try {
      const result = await runCommand(client, 'id -u');
      expect(result.code).toBe(1);
      expect(result.stdout + result.stderr).toMatch(/not available/);
    } finally {
      client.end();
    }
  });

  it.runIf(otherUser).each([
    ['pipes', {}],
    ['a PTY', { pty: { cols: 80, rows: 24, term: 'xterm' } }],
  ])('runs commands through %s as the login’s uid and groups, in its home', async (_, opts) => {
    const [name, , uid, gid, , home] = otherUser as string[];
    const client = await login(certificate({ logins: [name as string] }), { user: name });
    try {
      const script = 'id -u; id -g; id -G; pwd; echo "$USER $HOME"';
      const { stdout } = await runCommand(client, script, opts);
      const groups = execFileSync('id', ['-G', name as string], { encoding: 'utf8' });
      const cwd = existsSync(home as string) ? home : '/';
      // Its own supplementary groups (as at a login), never ours.
      expect(stdout.replace(/\r\n/g, '\n')).toBe(
        `${uid}\n${gid}\n${groups}${cwd}\n${name} ${home}\n`,
      );
    } finally {
      client.end();
    }
  });
});
