import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatHostPort } from '../../config/address.js';
import type { SshServiceConfig } from '../../config/config.js';
import { lockMessage, marksOf, type LockWatcher } from '../../access-control/locks/lock-watcher.js';
import { CommandLabels } from './nodes/command-labels.js';
import type { InventoryService } from './nodes/inventory.service.js';
import type { ClusterCa } from '../../ssh/ca.service.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { NodeService } from '../../ssh/node-service/index.js';

export interface LocalNodeDeps {
  config: SshServiceConfig;
  dataDir: string;
  ca: ClusterCa;
  inventory: InventoryService;
  locks: LockWatcher;
  log: (message: string, fields?: object) => void;
}

/**
 * The host `postern start` runs on, as a server (DESIGN.md: it shows up at once). The node
 * service listens on `ssh_service.listen_addr` (loopback by default) and heartbeats into the
 * inventory directly; an agent does the same through its tunnel. Its id and host key live in the
 * data dir, so a restart is the same server.
 */
export async function startLocalNode(deps: LocalNodeDeps) {
  const { id, hostKeyPem } = await loadOrCreateIdentity(deps.dataDir);
  const service = new NodeService({
    hostKeyPem,
    userCaPublicKeys: () => [deps.ca.userCaPublicKey],
    // A server is locked by its id or by its host name, as the proxy judges it in front.
    lockedMessage: ({ user, roles, login, ...marks }) => {
      const lock =
        deps.locks.lockFor({ user, roles, login, node: id, ...marksOf(marks) }) ??
        deps.locks.lockFor({ node: os.hostname() });
      return lock ? lockMessage(lock) : undefined;
    },
    log: deps.log,
    ...(deps.config.sftpServer ? { sftpServer: deps.config.sftpServer } : {}),
  });
  const { host } = deps.config.listenAddr;
  const { port } = await service.listen(host, deps.config.listenAddr.port);
  const labels = new CommandLabels(
    Object.fromEntries(deps.config.commands.map((c) => [c.name, c])),
  );
  await labels.start();
  const beat = () =>
    deps.inventory
      .heartbeat({
        id,
        hostname: os.hostname(),
        addr: formatHostPort({ host, port }),
        subKind: 'postern',
        tunnel: false,
        os: `${os.type()} ${os.release()}`.slice(0, 64),
        labels: { ...hostLabels(), ...deps.config.labels },
        cmdLabels: labels.values(),
        hostPublicKey: service.hostPublicKey,
      })
      .catch((error: unknown) => deps.log('heartbeat failed', { err: error }));
  await beat();
  const timer = setInterval(() => void beat(), deps.inventory.heartbeatIntervalMs);
  timer.unref();
  return {
    id,
    port,
    async stop() {
      clearInterval(timer);
      labels.stop();
      await service.close();
    },
  };
}

/**
 * What the Servers page shows of this host at once, so it can be told apart and filtered
 * (`labels["os"] == "linux"`); `ssh_service.labels` of the same names win.
 */
export const hostLabels = (): Record<string, string> => ({
  hostname: os.hostname(),
  os: os.platform(),
  arch: os.arch(),
});

async function loadOrCreateIdentity(dataDir: string): Promise<{ id: string; hostKeyPem: string }> {
  const keyFile = path.join(dataDir, 'node_host_key');
  const idFile = path.join(dataDir, 'node_id');
  try {
    const [hostKeyPem, id] = await Promise.all([
      readFile(keyFile, 'utf8'),
      readFile(idFile, 'utf8'),
    ]);
    return { id: id.trim(), hostKeyPem };
  } catch {
    const id = randomUUID();
    const { privateKeyPem } = generateEd25519Key();
    await writeFile(keyFile, privateKeyPem, { mode: 0o600 });
    await writeFile(idFile, `${id}\n`, { mode: 0o600 });
    return { id, hostKeyPem: privateKeyPem };
  }
}
