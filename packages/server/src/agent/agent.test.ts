import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'ssh2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error.js';
import { parseCertificate } from '../ssh/certificates.js';
import { connectToNode, openExec } from '../ssh/client.js';
import { generateEd25519Key, parsePublicKey, publicKeyFromPrivatePem } from '../ssh/keys.js';
import { runAgent, type RunningAgent } from './agent.js';
import { readIdentity, writeIdentity } from './agent-state.js';
import {
  eventually,
  recordingLog,
  startTunnelProxy,
  type TunnelProxy,
} from './tunnel-proxy.testkit.js';

const login = os.userInfo().username;

describe('postern agent over a reverse tunnel', () => {
  let proxy: TunnelProxy;
  let dataDir: string;
  let agent: RunningAgent | undefined;
  const log = recordingLog();

  beforeAll(async () => {
    proxy = await startTunnelProxy();
    dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'postern-agent-')), 'agent');
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
  });
  afterAll(async () => {
    await proxy.close();
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  const start = (token?: string) =>
    runAgent({
      proxy: proxy.url,
      token,
      labels: { env: 'test' },
      dataDir,
      insecure: false,
      heartbeatMs: 200,
      log,
    });

  it('refuses to start without a token before it has joined', async () => {
    await expect(start()).rejects.toThrow(ConfigError);
    await expect(start()).rejects.toThrow(/pass --token/);
  });

  it('reports a wrong token as the proxy words it, and saves no identity', async () => {
    await expect(start('0'.repeat(32))).rejects.toThrow(
      /the proxy refused to join this host: the join token is not valid/,
    );
    await expect(start('0'.repeat(32))).rejects.toThrow(ConfigError);
    expect(await readIdentity(dataDir)).toBeUndefined();
  });

  it('joins with a token, keeps its key and identity private, and connects', async () => {
    agent = await start(await proxy.newJoinToken());
    await eventually(() => proxy.registry.connected(agent!.nodeId), 5000, 'the tunnel');
    // The proxy registers the tunnel before its welcome reaches the agent; on a loaded machine
    // the agent learns it a moment later.
    await eventually(() => agent!.connected(), 5000, 'the agent to see its tunnel');

    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dataDir, 'host_key'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dataDir, 'identity.json'))).mode & 0o777).toBe(0o600);
    const identity = await readIdentity(dataDir);
    expect(identity).toMatchObject({
      nodeId: agent.nodeId,
      clusterName: 'test-cluster',
      proxy: proxy.url,
    });
    expect(parseCertificate(identity!.hostCertificate).principals).toContain(agent.nodeId);
  });

  it('carries an SSH login and `echo hello` through the tunnel', async () => {
    agent = await start();
    await eventually(() => proxy.registry.connected(agent!.nodeId), 5000, 'the tunnel');
    const client = await loginThroughTunnel(proxy, agent.nodeId, dataDir);
    try {
      expect(await run(client, 'echo hello')).toBe('hello\n');
    } finally {
      client.end();
    }
  });

  it('sends heartbeats under its proven node id, with its labels and host key', async () => {
    agent = await start();
    const nodeId = agent.nodeId;
    const before = proxy.heartbeats.length;
    await eventually(() => proxy.heartbeats.length >= before + 2, 5000, 'two heartbeats');
    const hostKey = publicKeyFromPrivatePem(await readFile(path.join(dataDir, 'host_key'), 'utf8'));
    expect(proxy.heartbeats.at(-1)).toMatchObject({
      id: nodeId,
      tunnel: true,
      subKind: 'postern',
      hostname: os.hostname(),
      labels: { env: 'test' },
      hostPublicKey: hostKey,
    });
    expect(proxy.inventory.resolve(nodeId).spec.tunnel).toBe(true);
  });

  it('reuses its identity on later runs: no token, same node', async () => {
    const { nodeId } = (await readIdentity(dataDir))!;
    agent = await start();
    expect(agent.nodeId).toBe(nodeId);
    await eventually(() => proxy.registry.connected(nodeId), 5000, 'the tunnel');
  });

  it('reconnects when the proxy drops its control socket', async () => {
    agent = await start();
    const nodeId = agent.nodeId;
    await eventually(() => proxy.registry.connected(nodeId), 5000, 'the tunnel');
    proxy.dropControlSockets();
    await eventually(() => !proxy.registry.connected(nodeId), 5000, 'the drop');
    await eventually(() => proxy.registry.connected(nodeId), 5000, 'the reconnection');
    expect(log.lines.some((line) => line.includes('reconnecting'))).toBe(true);
    // And the new tunnel works.
    const client = await loginThroughTunnel(proxy, nodeId, dataDir);
    client.end();
  });

  it('stop() ends sessions and the tunnel, and does not come back', async () => {
    agent = await start();
    const nodeId = agent.nodeId;
    await eventually(() => proxy.registry.connected(nodeId), 5000, 'the tunnel');
    const client = await loginThroughTunnel(proxy, nodeId, dataDir);
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    await agent.stop();
    agent = undefined;
    await clientClosed;
    await eventually(() => !proxy.registry.connected(nodeId), 5000, 'the tunnel to close');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // longer than the first backoff
    expect(proxy.registry.connected(nodeId)).toBe(false);
    await expect(proxy.registry.dial({ kind: 'node', name: nodeId })).rejects.toThrow(
      /is not connected to this proxy/,
    );
  });
});

describe('a proxy with a self-signed certificate', () => {
  let proxy: TunnelProxy;
  let dataDir: string;
  beforeAll(async () => {
    proxy = await startTunnelProxy({ selfSignedTls: true });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'postern-agent-'));
  });
  afterAll(async () => {
    await proxy.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is refused unless --insecure, which works and warns', async () => {
    const log = recordingLog();
    const options = {
      proxy: proxy.url,
      labels: {},
      dataDir,
      log,
      token: await proxy.newJoinToken(),
    };
    await expect(runAgent({ ...options, insecure: false })).rejects.toThrow(/needs --insecure/);

    const agent = await runAgent({ ...options, insecure: true });
    try {
      expect(log.lines.some((line) => line.includes('TLS certificate is not checked'))).toBe(true);
      await eventually(() => proxy.registry.connected(agent.nodeId), 5000, 'the tunnel');
      const client = await loginThroughTunnel(proxy, agent.nodeId, dataDir);
      expect(await run(client, 'echo hello')).toBe('hello\n');
      client.end();
    } finally {
      await agent.stop();
    }
  });
});

describe('host certificate renewal', () => {
  it('saves the certificate the proxy renews and uses it next time', async () => {
    const proxy = await startTunnelProxy({
      renewHostCertificate: (request) =>
        proxy.ca.issueHostCertificate({ ...request, hostId: request.nodeId, ttlMs: 3600_000 }),
    });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'postern-agent-'));
    try {
      // An identity past half of its certificate's life, as after two weeks of running.
      const key = generateEd25519Key();
      await writeFile(path.join(dataDir, 'host_key'), key.privateKeyPem, { mode: 0o600 });
      const nodeId = '0b6c9a43-4c4e-4f7e-9d55-4c1d1f0e2a11';
      const aged = proxy.ca.issueHostCertificate({
        publicKey: key.publicKey,
        principals: [nodeId],
        hostId: nodeId,
        ttlMs: 10 * 60_000,
        now: new Date(Date.now() - 8 * 60_000),
      });
      await writeIdentity(dataDir, {
        nodeId,
        hostCertificate: aged,
        userCaKeys: [proxy.ca.userCaPublicKey],
        hostCaKeys: [],
        clusterName: 'test-cluster',
        proxy: proxy.url,
      });
      const agent = await runAgent({
        proxy: proxy.url,
        labels: {},
        dataDir,
        insecure: false,
        log: recordingLog(),
      });
      try {
        await eventually(() => proxy.registry.connected(nodeId), 5000, 'the tunnel');
        const savedCertificate = async () => (await readIdentity(dataDir))!.hostCertificate;
        await eventually(async () => (await savedCertificate()) !== aged, 5000, 'the renewal');
        const renewed = parseCertificate(await savedCertificate());
        expect(renewed.validBefore.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
        expect(renewed.publicKeyBlob.equals(parsePublicKey(key.publicKey).blob)).toBe(true);
        expect(renewed.principals).toEqual([nodeId]);
      } finally {
        await agent.stop();
      }
    } finally {
      await proxy.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/** What the terminal does: dial through the registry, then log in with a fresh user certificate. */
async function loginThroughTunnel(
  proxy: TunnelProxy,
  nodeId: string,
  dataDir: string,
): Promise<Client> {
  const hostKey = parsePublicKey(
    publicKeyFromPrivatePem(await readFile(path.join(dataDir, 'host_key'), 'utf8')),
  );
  const key = generateEd25519Key();
  const certificate = proxy.ca.issueUserCertificate({
    user: 'alice',
    roles: ['access'],
    logins: [login],
    publicKey: key.publicKey,
    ttlMs: 60_000,
  });
  return connectToNode({
    sock: await proxy.registry.dial({ kind: 'node', name: nodeId }),
    login,
    key: { privateKeyPem: key.privateKeyPem, certificate },
    verifyHostKey: (blob) => blob.equals(hostKey.blob),
  });
}

async function run(client: Client, command: string): Promise<string> {
  const channel = await openExec(client, command);
  let output = '';
  channel.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await new Promise((resolve) => channel.once('close', resolve));
  return output;
}
