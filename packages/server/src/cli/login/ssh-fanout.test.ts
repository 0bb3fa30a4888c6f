import type { NodeJson } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import {
  labelSelector,
  nodesMatching,
  runOnNodes,
  splitSshArguments,
  takeClusterOption,
  type PipedSshRunner,
} from './ssh-fanout.js';

const node = (id: string, hostname: string, labels: Record<string, string>): NodeJson => ({
  id,
  siteId: 'lab',
  hostname,
  addr: '',
  tunnel: true,
  subKind: 'postern',
  tags: Object.entries(labels).map(([name, value]) => ({ name, value })),
  sshLogins: ['root'],
  status: 'online',
  lastHeartbeat: '',
  os: 'linux',
});

describe('splitSshArguments', () => {
  it('finds the destination after options, with or without their values', () => {
    expect(splitSshArguments(['-p', '2222', '-tt', 'root@web', 'uptime', '-a'])).toEqual({
      options: ['-p', '2222', '-tt'],
      destination: 'root@web',
      command: ['uptime', '-a'],
    });
    expect(splitSshArguments(['-p2222', '-oBatchMode=yes', 'web'])?.destination).toBe('web');
    expect(splitSshArguments(['-vL', '80:127.0.0.1:80', 'web'])?.destination).toBe('web');
    expect(splitSshArguments(['-o', 'BatchMode=yes', 'env=prod', 'id'])).toMatchObject({
      destination: 'env=prod',
      command: ['id'],
    });
    expect(splitSshArguments(['-N', '--', 'web'])?.destination).toBe('web');
  });

  it('finds none when every argument is an option or its value', () => {
    expect(splitSshArguments(['-p', '22'])).toBeUndefined();
    expect(splitSshArguments([])).toBeUndefined();
  });
});

describe('takeClusterOption', () => {
  it("takes --cluster LEAF from ssh's options, never from an option's value or the command", () => {
    expect(takeClusterOption(['--cluster', 'lab', '-p', '22', 'root@web', 'id'])).toEqual({
      cluster: 'lab',
      args: ['-p', '22', 'root@web', 'id'],
    });
    expect(takeClusterOption(['-tt', '--cluster=lab', 'web'])).toEqual({
      cluster: 'lab',
      args: ['-tt', 'web'],
    });
    // `-o --cluster` is ssh's -o with that value; after the destination it is the command's.
    expect(takeClusterOption(['-o', '--cluster', 'web'])).toEqual({
      args: ['-o', '--cluster', 'web'],
    });
    expect(takeClusterOption(['web', 'echo', '--cluster', 'x'])).toEqual({
      args: ['web', 'echo', '--cluster', 'x'],
    });
    expect(() => takeClusterOption(['--cluster'])).toThrow('--cluster names a trusted leaf');
    expect(() => takeClusterOption(['--cluster=', 'web'])).toThrow('--cluster names');
  });
});

describe('labelSelector', () => {
  it('reads name=value pairs, and leaves host names alone', () => {
    expect(labelSelector('env=prod,team=web')).toEqual(
      new Map([
        ['env', 'prod'],
        ['team', 'web'],
      ]),
    );
    expect(labelSelector('web-1.lab')).toBeUndefined();
  });

  it('refuses a selector that is not whole pairs', () => {
    expect(() => labelSelector('env=prod,web')).toThrow(/not a label selector/);
    expect(() => labelSelector('=prod')).toThrow(/not a label selector/);
  });
});

describe('nodesMatching', () => {
  it('keeps the nodes that carry every label asked for', () => {
    const nodes = [
      node('1', 'a', { env: 'prod', team: 'web' }),
      node('2', 'b', { env: 'prod' }),
      node('3', 'c', { env: 'dev', team: 'web' }),
    ];
    const selector = labelSelector('env=prod,team=web')!;
    expect(nodesMatching(nodes, selector).map((n) => n.hostname)).toEqual(['a']);
    expect(nodesMatching(nodes, labelSelector('env=prod')!).map((n) => n.hostname)).toEqual([
      'a',
      'b',
    ]);
  });
});

describe('runOnNodes', () => {
  const nodes = [node('id-a', 'a', {}), node('id-b', 'b', {}), node('id-c', 'c', {})];

  /** ssh that writes its node's output in awkward pieces, and exits as told. */
  const scripted =
    (codes: Record<string, number>): PipedSshRunner =>
    async (args, sink) => {
      const destination = args.at(-2)!;
      const name = destination.slice(destination.indexOf('@id-') + 4, destination.indexOf('.'));
      const bytes = Buffer.from(`one ${name}\ntwo ✓ ${name}\nno newline`);
      // A cut inside the three bytes of ✓, and lines across chunks.
      const cut = bytes.indexOf(Buffer.from('✓')) + 1;
      sink.stdout(bytes.subarray(0, 3));
      sink.stdout(bytes.subarray(3, cut));
      await new Promise((resolve) => setTimeout(resolve, 1));
      sink.stdout(bytes.subarray(cut));
      sink.stderr(Buffer.from(`warning on ${name}\n`));
      return codes[name] ?? 0;
    };

  const run = async (codes: Record<string, number>) => {
    const out: string[] = [];
    const err: string[] = [];
    const ran: string[][] = [];
    const code = await runOnNodes({
      nodes,
      loginPrefix: 'root@',
      cluster: 'lab',
      options: ['-F', 'cfg'],
      command: ['uptime'],
      run: (args, sink) => {
        ran.push(args);
        return scripted(codes)(args, sink);
      },
      write: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
      parallel: 2,
    });
    return { code, out: out.join(''), err: err.join(''), ran };
  };

  it('prefixes each whole line with its node, and dials each node by id in the cluster', async () => {
    const { code, out, err, ran } = await run({});
    expect(code).toBe(0);
    expect(ran.map((args) => args.join(' ')).sort()).toEqual([
      '-F cfg root@id-a.lab uptime',
      '-F cfg root@id-b.lab uptime',
      '-F cfg root@id-c.lab uptime',
    ]);
    for (const name of ['a', 'b', 'c']) {
      const lines = out.split('\n').filter((line) => line.startsWith(`[${name}] `));
      expect(lines).toEqual([
        `[${name}] one ${name}`,
        `[${name}] two ✓ ${name}`,
        `[${name}] no newline`,
      ]);
      expect(err).toContain(`[${name}] warning on ${name}\n`);
    }
    expect(out.split('\n').filter(Boolean)).toHaveLength(9);
  });

  it('exits with the first failing node’s code and names every failure', async () => {
    const { code, err } = await run({ b: 3, c: 255 });
    expect(code).toBe(3);
    expect(err).toContain('postern: 2 of 3 nodes failed: b (exit 3), c (exit 255)\n');
  });
});
