import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import {
  bothNodes,
  startSshProxyWorld,
  type SshProxyWorld,
} from '../../../testing/ssh-proxy-world.testkit.js';

// sftp and scp through the SSH proxy to a real sshd and to the built-in node: the files arrive
// whole, and each operation is audited.

let world: SshProxyWorld;
let local: SshProxyWorld['local'];
let alice: OpenSshClientSetup;

beforeAll(async () => {
  world = await startSshProxyWorld();
  ({ local, alice } = world);
}, 60_000);

afterAll(() => world?.stop());

const events = () => world.events();

const nodes = () => bothNodes(() => world);

describe('sftp and scp through the proxy', () => {
  // The built-in node joins these once the node service serves the sftp subsystem.
  it.each(nodes().slice(0, 1))(
    'sftp puts, lists, renames and removes on %s, each audited',
    async (_, node) => {
      const work = await mkdtemp(path.join(tmpdir(), 'postern-sftp-'));
      try {
        const local = path.join(work, 'up.bin');
        const data = randomBytes(3 * 1024 * 1024 + 17);
        await writeFile(local, data);
        const remote = path.join(work, 'remote');
        const batch = path.join(work, 'batch');
        await writeFile(
          batch,
          [
            `mkdir ${remote}`,
            `put ${local} ${remote}/a.bin`,
            `rename ${remote}/a.bin ${remote}/b.bin`,
            `get ${remote}/b.bin ${work}/down.bin`,
            `ls ${remote}`,
            `rm ${remote}/b.bin`,
            `rmdir ${remote}`,
            '',
          ].join('\n'),
        );
        const result = await alice.run('sftp', ['-b', batch, `root@${node()}`]);
        expect(result.code, result.stderr).toBe(0);
        expect(sha256(await readFile(path.join(work, 'down.bin')))).toBe(sha256(data));
        await expect(stat(remote)).rejects.toThrow();
        const sftp = (await events()).filter(
          (e) => e.event === 'sftp' && String(e.path).startsWith(remote),
        );
        const codes = sftp.map((e) => e.code);
        for (const code of ['TS012I', 'TS001I', 'TS002I', 'TS016I', 'TS011I', 'TS013I'])
          expect(codes).toContain(code);
        const written = sftp.find((e) => e.code === 'TS002I' && e.bytesWritten === data.length);
        expect(written).toMatchObject({ user: 'alice', login: 'root', path: `${remote}/a.bin` });
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  );

  it('audits a failed SFTP operation with its failure code', async () => {
    const result = await alice.run('sftp', ['-b', '-', 'root@sshd-host'], 'rm /no/such/file\n');
    expect(result.code).not.toBe(0);
    const failed = (await events()).find((e) => e.code === 'TS011E' && e.path === '/no/such/file');
    expect(failed).toMatchObject({ user: 'alice', error: expect.stringMatching(/no such file/i) });
  });

  it.each([
    ['scp (SFTP)', []],
    ['scp -O (the old protocol)', ['-O']],
  ])('%s copies a file both ways, to and from both kinds of node', async (_, flags) => {
    const work = await mkdtemp(path.join(tmpdir(), 'postern-scp-'));
    try {
      // Larger than the 2 MiB windows, so every leg waits for window adjustments: the proxy
      // keeps less in flight towards OpenSSH (in-flight.ts) and the full window towards the
      // node service (ssh2 adjusts only after half its window).
      const data = randomBytes(5 * 1024 * 1024 + 3);
      await writeFile(path.join(work, 'a'), data);
      const copy = async (from: string, to: string) => {
        const result = await alice.run('scp', [...flags, from, to]);
        expect(result.code, result.stderr).toBe(0);
      };
      // Up to the OpenSSH host and back from the node service (the same file), then the
      // other way round.
      await copy(path.join(work, 'a'), `root@sshd-host:${work}/b`);
      await copy(`root@${local.id}:${work}/b`, path.join(work, 'c'));
      await copy(path.join(work, 'c'), `root@${local.id}:${work}/d`);
      await copy(`root@sshd-host:${work}/d`, path.join(work, 'e'));
      expect(sha256(await readFile(path.join(work, 'e')))).toBe(sha256(data));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
