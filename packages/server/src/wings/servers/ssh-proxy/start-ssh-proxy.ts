import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Backend } from '../../../backend/index.js';
import { BackendSemaphore } from '../../../backend/semaphore.js';
import type { Config } from '../../../config/config.js';
import { TrustedProxies } from '../../../net/proxy-protocol.js';
import type { ClusterCa } from '../../../ssh/ca.service.js';
import { generateEd25519Key, publicKeyFromPrivatePem } from '../../../ssh/keys.js';
import { poolPacketPadding } from '../../../ssh/padding-pool.js';
import type { AccessResolver } from '../../../access-control/access/access-resolver.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import type { LockView } from '../../../access-control/locks/lock-watcher.js';
import type { RecordingStore } from '../../../modules/recordings/recording-store.js';
import type { NodeDirectory, TerminalService } from '../terminal/terminal.service.js';
import type { ClusterSsh } from '../../../modules/trusted-clusters/cluster-ssh.js';
import { SshProxy } from './ssh-proxy.js';

export interface StartSshProxyDeps {
  config: Config;
  ca: ClusterCa;
  nodes: NodeDirectory;
  terminals: TerminalService;
  access: Pick<AccessResolver, 'resolve' | 'credentialRevoked'>;
  locks: LockView;
  audit: AuditStore;
  recordings: RecordingStore;
  now: () => number;
  log: (message: string, fields?: object) => void;
  loginGraceMs?: number;
  /** Where max_connections leases live (shared by every proxy on the same storage). */
  backend?: Backend;
  clusterSsh?: ClusterSsh;
}

/**
 * Starts the SSH listener on `ssh_addr`. Its host key lives in the data dir, so a client that
 * pinned the plain key (no `@cert-authority` line) still knows it after a restart. With port 0
 * the OS picks one; the caller reports the bound address (config/listen-addresses.ts).
 */
export async function startSshProxy(deps: StartSshProxyDeps) {
  const { config } = deps;
  const hostKey = await loadOrCreateHostKey(path.join(config.dataDir, 'proxy_host_key'));
  const listenHost = config.sshAddr.host;
  const principals = [
    config.publicAddr.host,
    hostname(),
    'localhost',
    '127.0.0.1',
    ...(['0.0.0.0', '::', ''].includes(listenHost) ? [] : [listenHost]),
  ];
  const proxy = new SshProxy({
    ca: deps.ca,
    hostKey,
    principals: [...new Set(principals)],
    clusterName: config.clusterName,
    nodes: deps.nodes,
    terminals: deps.terminals,
    requesterFor: (user, roles, accessRequests = []) => {
      const resolved = deps.access.resolve(user, roles, accessRequests);
      return {
        user,
        roles: resolved.roles,
        roleSet: resolved.roleSet,
        traits: resolved.traits,
        hasRecord: resolved.hasRecord,
      };
    },
    credentialRevoked: (user, credential) => deps.access.credentialRevoked(user, credential),
    locks: deps.locks,
    audit: deps.audit,
    recordings: { store: deps.recordings, onFailure: config.recordings.onFailure },
    now: deps.now,
    log: deps.log,
    trustedProxies: new TrustedProxies(config.trustedProxies),
    ...(deps.clusterSsh ? { clusterSsh: deps.clusterSsh } : {}),
    ...(deps.loginGraceMs ? { loginGraceMs: deps.loginGraceMs } : {}),
    ...(deps.backend
      ? {
          connectionLeases: new BackendSemaphore(deps.backend, {
            prefix: '/semaphores/connections/',
            log: deps.log,
          }),
        }
      : {}),
  });
  // Relaying encrypts every packet twice more: its padding comes from a pool (padding-pool.ts).
  if (!poolPacketPadding()) {
    deps.log(
      'ssh proxy: packet padding is not pooled (ssh2 is not the version it was written for)',
    );
  }
  const { port } = await proxy.listen(listenHost, config.sshAddr.port);
  return { port, address: { host: listenHost, port }, stop: () => proxy.close() };
}

async function loadOrCreateHostKey(file: string) {
  let privateKeyPem = await readFile(file, 'utf8').catch(() => undefined);
  if (!privateKeyPem) {
    privateKeyPem = generateEd25519Key().privateKeyPem;
    await writeFile(file, privateKeyPem, { mode: 0o600 });
  }
  return { privateKeyPem, publicKey: publicKeyFromPrivatePem(privateKeyPem) };
}
