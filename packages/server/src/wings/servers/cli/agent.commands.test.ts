import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readIdentity } from '../../../agent/agent-state.js';
import {
  eventually,
  recordingLog,
  startTunnelProxy,
  type TunnelProxy,
} from '../../../agent/tunnel-proxy.testkit.js';
import { ConfigError } from '../../../config/config-error.js';
import {
  addAgentCommand,
  agentOptionsFromFlags,
  parseApps,
  parseLabels,
} from './agent.commands.js';

describe('--labels', () => {
  it('reads name=value pairs', () => {
    expect(parseLabels('env=prod, team=db,empty=')).toEqual({ env: 'prod', team: 'db', empty: '' });
    expect(parseLabels('')).toEqual({});
    expect(parseLabels('a=b=c')).toEqual({ a: 'b=c' });
  });

  it('refuses pairs without a valid name, and names given twice', () => {
    expect(() => parseLabels('env')).toThrow(ConfigError);
    expect(() => parseLabels('=prod')).toThrow(/expected name=value/);
    expect(() => parseLabels('bad name=x')).toThrow(/expected name=value/);
    expect(() => parseLabels('env=a,env=b')).toThrow(/env is given twice/);
  });
});

describe('--app', () => {
  it('reads name=uri, repeated', () => {
    expect(parseApps(['grafana=http://localhost:3000', 'cache = tcp://127.0.0.25:6379'])).toEqual([
      { name: 'grafana', uri: 'http://localhost:3000' },
      { name: 'cache', uri: 'tcp://127.0.0.25:6379' },
    ]);
  });

  it('refuses a name that is no DNS label, a uri of another scheme, and a name twice', () => {
    expect(() => parseApps(['Grafana=http://x'])).toThrow(/DNS label/);
    expect(() => parseApps(['http://x'])).toThrow(ConfigError);
    expect(() => parseApps(['db=postgres://x:5432'])).toThrow(/http:\/\/, https:\/\/ or tcp/);
    expect(() => parseApps(['cache=tcp://x'])).toThrow(/tcp:\/\/host:port/);
    expect(() => parseApps(['a=http://x', 'a=http://y'])).toThrow(/a is given twice/);
  });
});

describe('postern agent', () => {
  let proxy: TunnelProxy;
  let dir: string;
  beforeAll(async () => {
    proxy = await startTunnelProxy();
    dir = await mkdtemp(path.join(os.tmpdir(), 'postern-agent-cli-'));
  });
  afterAll(async () => {
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('turns its flags into agent options, with the documented defaults', () => {
    const log = recordingLog();
    const program = new Command().exitOverride();
    addAgentCommand(program);
    const agent = program.commands.find((command) => command.name() === 'agent')!;
    expect(agent.opts()).toEqual({ dataDir: './postern-agent' });
    expect(agentOptionsFromFlags({ proxy: 'p:3080', dataDir: 'd', labels: 'a=1' }, log)).toEqual({
      proxy: 'p:3080',
      token: undefined,
      labels: { a: '1' },
      dataDir: 'd',
      insecure: false,
      apps: [],
      databases: [],
      kubeClusters: [],
      desktops: [],
      log,
    });
  });

  it('joins, keeps the tunnel up until SIGTERM, then stops cleanly', async () => {
    const log = recordingLog();
    const program = new Command().exitOverride();
    addAgentCommand(program, { log });
    const dataDir = path.join(dir, 'agent');
    const args = ['agent', '--proxy', proxy.url, '--token', await proxy.newJoinToken()];
    const running = program.parseAsync([...args, '--labels', 'env=ci', '--data-dir', dataDir], {
      from: 'user',
    });

    let nodeId = '';
    await eventually(
      async () => {
        nodeId = (await readIdentity(dataDir).catch(() => undefined))?.nodeId ?? '';
        return nodeId !== '' && proxy.registry.connected(nodeId);
      },
      5000,
      'the agent to connect',
    );
    await eventually(() => proxy.heartbeats.some((h) => h.id === nodeId), 5000, 'a heartbeat');
    expect(proxy.heartbeats.find((h) => h.id === nodeId)?.labels).toEqual({ env: 'ci' });

    process.emit('SIGTERM', 'SIGTERM');
    await running;
    expect(log.lines.some((line) => line.startsWith('info: agent stopped'))).toBe(true);
    await eventually(() => !proxy.registry.connected(nodeId), 5000, 'the tunnel to close');
    // Nothing is left listening for signals once it has stopped.
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('reports an unreachable proxy in one line, with exit code 1', async () => {
    const program = new Command().exitOverride();
    addAgentCommand(program, { log: recordingLog() });
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const args = ['agent', '--proxy', 'http://127.0.0.1:1', '--token', 't'];
      await program.parseAsync([...args, '--data-dir', path.join(dir, 'unreachable')], {
        from: 'user',
      });
      expect(process.exitCode).toBe(1);
      expect(printed).toHaveBeenCalledWith(
        expect.stringMatching(/^postern agent: cannot join through http:\/\/127\.0\.0\.1:1: /),
      );
    } finally {
      printed.mockRestore();
      process.exitCode = 0;
    }
  });

  it('refuses a malformed --proxy in one line', async () => {
    const program = new Command().exitOverride();
    addAgentCommand(program, { log: recordingLog() });
    await expect(
      program.parseAsync(['agent', '--proxy', 'ftp://x', '--data-dir', path.join(dir, 'x')], {
        from: 'user',
      }),
    ).rejects.toThrow(/only http:\/\/ and https:\/\//);
  });
});
