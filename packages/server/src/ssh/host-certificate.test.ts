import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend, type Backend } from '../backend/index.js';
import { ClusterCa } from './ca.service.js';
import { CertifiedHostKeys } from './host-certificate.js';
import { generateEd25519Key } from './keys.js';

let backend: Backend;
let ca: ClusterCa;
let dir: string;
let listener: NetServer;
let port: number;
const hostKey = generateEd25519Key();

/** Runs the real OpenSSH client against the test server; resolves with its exit code and log. */
function ssh(knownHosts: string, ...extra: string[]): Promise<{ code: number; log: string }> {
  return new Promise((resolve) => {
    execFile(
      'ssh',
      [
        '-v',
        '-F',
        'none',
        '-p',
        String(port),
        '-o',
        `UserKnownHostsFile=${knownHosts}`,
        '-o',
        'GlobalKnownHostsFile=/dev/null',
        '-o',
        'StrictHostKeyChecking=yes',
        '-o',
        'BatchMode=yes',
        '-o',
        'PreferredAuthentications=none',
        ...extra,
        'nobody@127.0.0.1',
        'true',
      ],
      { timeout: 20_000 },
      (error, _stdout, stderr) =>
        resolve({ code: (error as { code?: number } | null)?.code ?? 0, log: stderr }),
    );
  });
}

beforeAll(async () => {
  backend = await openBackend({ type: 'memory' });
  ca = await ClusterCa.loadOrCreate(backend, 'test-cluster');
  dir = await mkdtemp(path.join(tmpdir(), 'postern-hostcert-'));
  const certificate = ca.issueHostCertificate({
    publicKey: hostKey.publicKey,
    principals: ['127.0.0.1', 'web-1'],
    ttlMs: 3600_000,
    hostId: 'proxy',
  });
  // One ssh2 server per connection, as the SSH proxy does: the keys belong to one connection.
  listener = createServer((socket) => {
    const keys = new CertifiedHostKeys(hostKey.privateKeyPem, certificate);
    const server = new ssh2.Server({ hostKeys: keys.hostKeys as string[] }, (client) => {
      client.on('authentication', (ctx) => ctx.reject(['publickey']));
      client.on('error', () => undefined);
    });
    server.on('connection', (client) => keys.attach(client));
    server.injectSocket(socket);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});

afterAll(async () => {
  listener?.close();
  await backend?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('CertifiedHostKeys', () => {
  it('OpenSSH trusts the server through one @cert-authority line', async () => {
    const knownHosts = path.join(dir, 'known_hosts_ca');
    await writeFile(knownHosts, `${ca.knownHostsLine()}\n`);
    const { log } = await ssh(knownHosts);
    expect(log).toMatch(/Server host certificate: ssh-ed25519-cert-v01@openssh.com/);
    expect(log).toMatch(
      /Host '\[127.0.0.1\]:\d+' is known and matches the ED25519-CERT host certificate/,
    );
    // Trusted, so the client went on to authenticate (and was refused: no user key here).
    expect(log).toMatch(/Authentications that can continue: publickey/);
  });

  it('a client without the CA refuses the host under strict checking', async () => {
    const knownHosts = path.join(dir, 'known_hosts_empty');
    await writeFile(knownHosts, '');
    const { code, log } = await ssh(knownHosts);
    expect(code).toBe(255);
    expect(log).toMatch(/Host key verification failed/);
  });

  it('a certificate for another name is refused', async () => {
    const knownHosts = path.join(dir, 'known_hosts_alias');
    await writeFile(knownHosts, `${ca.knownHostsLine()}\n`);
    const { code, log } = await ssh(knownHosts, '-o', 'HostKeyAlias=db-9');
    expect(code).toBe(255);
    expect(log).toMatch(/Certificate invalid: name is not a listed principal/);
  });

  it('clients without certificate support get the plain key', async () => {
    const client = new ssh2.Client();
    const offered = await new Promise<string>((resolve, reject) => {
      client.on('handshake', (negotiated) => resolve(negotiated.serverHostKey));
      client.on('error', reject);
      client.connect({ host: '127.0.0.1', port, username: 'x', hostVerifier: () => true });
    });
    client.end();
    expect(offered).toBe('ssh-ed25519');
  });
});
