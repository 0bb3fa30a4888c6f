import os from 'node:os';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { ConfigError } from '../config/config-error.js';
import { CommandLabels, type CommandLabelSpec } from '../wings/servers/nodes/command-labels.js';
import { parseCertificate } from '../ssh/certificates.js';
import { ed25519PrivateKeyObject, parsePublicKey } from '../ssh/keys.js';
import { NodeService } from '../ssh/node-service/index.js';
import {
  identityFile,
  loadOrCreateHostKey,
  openDataDir,
  readIdentity,
  writeIdentity,
  type AgentIdentity,
  type HostKey,
} from './agent-state.js';
import { postJoin } from './join.js';
import { proxyBaseUrl } from './proxy-address.js';
import { forwardTcp, forwardToApp, type AgentApp, type AgentDatabase } from './app-forwarder.js';
import { relaySignedIn } from '../wings/desktops/rfb/signed-in-relay.js';
import { dialTcp } from '../modules/tunnel/dial-tcp.js';
import type { AgentDesktop } from './desktop-flags.js';
import { KubeForwarder, type AgentKubeCluster } from './kube-forwarder.js';
import type { AgentLog } from './tunnel-client.js';
import { TunnelSet, type TunnelSetOptions } from './tunnel-set.js';

export interface AgentOptions {
  /** `HOST:PORT` (HTTPS), or a full `http://` / `https://` URL. */
  proxy: string;
  /** A Node join token; needed only until the agent has joined. */
  token?: string;
  /** Static labels, reported on every heartbeat. */
  labels: Record<string, string>;
  dataDir: string;
  /** Do not check the proxy's TLS certificate (a self-signed proxy). */
  insecure: boolean;
  /** Default 30 s. */
  heartbeatMs?: number;
  /** Labels whose values come from running commands on this host. */
  commandLabels?: Record<string, CommandLabelSpec>;
  /** Apps reached from this host (`--app name=uri`), served with the static labels. */
  apps?: AgentApp[];
  /** Databases reached from this host (`--db name=postgres://host:port`), with the labels too. */
  databases?: AgentDatabase[];
  /** Kubernetes clusters reached from this host (`--kube NAME --kubeconfig FILE`). */
  kubeClusters?: AgentKubeCluster[];
  /** VNC desktops reached from this host (`--desktop name=vnc://host:port`). */
  desktops?: AgentDesktop[];
  log: AgentLog;
}

export interface RunningAgent {
  nodeId: string;
  /** Whether the proxy it was started with (`--proxy`) has the tunnel right now. */
  connected(): boolean;
  /**
   * Every tunnel it keeps: the one to `--proxy` first, then one per other proxy the cluster
   * listed, with the id each proxy gave (once it let the agent in).
   */
  tunnels(): { proxy: string; proxyId: string | undefined; connected: boolean }[];
  /** Ends every session, closes the tunnel and stops reconnecting. */
  stop(): Promise<void>;
}

const defaultHeartbeatMs = 30_000;

/**
 * `postern agent`: serves this host's SSH, and any apps it was given, through a reverse tunnel to
 * the proxy, so the host needs no inbound port. It joins once with a token, then proves itself with its host key and
 * certificate on every connection. Resolves once the identity is ready; connecting (and
 * reconnecting, for as long as it runs) happens in the background.
 */
export async function runAgent(options: AgentOptions): Promise<RunningAgent> {
  const { log } = options;
  const base = proxyBaseUrl(options.proxy);
  if (options.insecure && base.protocol === 'https:') {
    log.warn(
      { proxy: base.origin },
      "--insecure: the proxy's TLS certificate is not checked, so anyone between this host and the proxy could pose as it",
    );
  }
  const dataDir = path.resolve(options.dataDir);
  await openDataDir(dataDir);
  const hostKey = await loadOrCreateHostKey(dataDir);
  let identity = await loadOrJoin(options, base, dataDir, hostKey);
  const problem = certificateProblem(identity.hostCertificate, identity.nodeId, hostKey);
  if (problem) {
    const again = `remove ${path.join(dataDir, identityFile)} and run again with a new --token`;
    throw new ConfigError(`${problem}: ${again}`);
  }

  let userCaKeys = identity.userCaKeys;
  const nodeService = new NodeService({
    hostKeyPem: hostKey.privateKeyPem,
    userCaPublicKeys: () => userCaKeys,
    log: (msg, fields) => log.info({ ...fields }, msg),
  });
  const commandLabels = options.commandLabels
    ? new CommandLabels(options.commandLabels)
    : undefined;
  // Labels read '' until their first run ends; the heartbeat after that carries them.
  void commandLabels?.start();

  const apps = options.apps ?? [];
  const databases = options.databases ?? [];
  // Each cluster's kubeconfig is read now: a bad one stops the agent before it connects.
  const kubeClusters = (options.kubeClusters ?? []).map((cluster) => ({
    cluster,
    forwarder: new KubeForwarder(cluster),
  }));
  const desktops = options.desktops ?? [];
  const hostname = os.hostname();
  const osName = `${os.type()} ${os.release()}`.slice(0, 64);
  const tunnelOptions: TunnelSetOptions = {
    insecure: options.insecure,
    nodeId: identity.nodeId,
    hostCertificate: () => identity.hostCertificate,
    hostKey: ed25519PrivateKeyObject(hostKey.privateKeyPem),
    heartbeatMs: options.heartbeatMs ?? defaultHeartbeatMs,
    heartbeat: () => ({
      hostname,
      os: osName,
      labels: options.labels,
      cmdLabels: commandLabels?.values() ?? {},
      hostPublicKey: hostKey.publicKey,
      apps: apps.map((app) => ({ name: app.name, uri: app.uri, labels: options.labels })),
      databases: databases.map((db) => ({
        name: db.name,
        protocol: db.protocol,
        uri: `${db.host.includes(':') ? `[${db.host}]` : db.host}:${db.port}`,
        labels: options.labels,
        ca_cert: db.caCert,
        tls_mode: db.tlsMode,
      })),
      kube_clusters: kubeClusters.map(({ cluster }) => ({
        name: cluster.name,
        labels: options.labels,
      })),
      desktops: desktops.map((desktop) => ({
        name: desktop.name,
        protocol: 'vnc',
        addr: `${desktop.host.includes(':') ? `[${desktop.host}]` : desktop.host}:${desktop.port}`,
        os: osName,
        labels: options.labels,
      })),
    }),
    services: [
      {
        service: { kind: 'node', name: identity.nodeId },
        handle: (stream) => nodeService.handleConnection(stream),
      },
      ...apps.map((app) => ({
        service: { kind: 'app', name: app.name },
        handle: (stream: Duplex) =>
          forwardToApp(app, stream, (error) =>
            log.warn({ app: app.name, err: error.message }, 'a connection to the app failed'),
          ),
      })),
      ...databases.map((db) => ({
        service: { kind: 'db', name: db.name },
        handle: (stream: Duplex) =>
          forwardTcp(db, stream, (error) =>
            log.warn({ db: db.name, err: error.message }, 'a connection to the database failed'),
          ),
      })),
      ...kubeClusters.map(({ cluster, forwarder }) => ({
        service: { kind: 'kube', name: cluster.name },
        handle: (stream: Duplex) => forwarder.serve(stream),
      })),
      ...desktops.map((desktop) => ({
        service: { kind: 'desktop', name: desktop.name },
        // The agent signs in to the desktop; the proxy gets it with no password asked.
        handle: (stream: Duplex) => {
          dialTcp(desktop)
            .then((tcp) => relaySignedIn(stream, tcp, desktop.password))
            .catch((error: Error) => {
              stream.destroy();
              log.warn(
                { desktop: desktop.name, err: error.message },
                'a desktop connection failed',
              );
            });
        },
      })),
    ],
    onReady: (keys) => {
      if (keys && keys.length > 0) userCaKeys = keys;
    },
    onCertificate: (hostCertificate) => {
      const refused = certificateProblem(hostCertificate, identity.nodeId, hostKey);
      if (refused) return log.warn({}, `ignored a renewed host certificate: ${refused}`);
      identity = { ...identity, hostCertificate };
      writeIdentity(dataDir, identity).then(
        () => log.info({ nodeId: identity.nodeId }, 'saved the renewed host certificate'),
        (error: unknown) => log.error({ err: error }, 'cannot save the renewed host certificate'),
      );
    },
    log,
  };
  // One tunnel to --proxy (the bootstrap, perhaps a load balancer), and one to each other proxy
  // the cluster lists, by proxy id; a proxy that leaves the list loses its tunnel.
  const tunnel = new TunnelSet(tunnelOptions, base);
  tunnel.start();

  let stopping: Promise<void> | undefined;
  return {
    nodeId: identity.nodeId,
    connected: () => tunnel.connected,
    tunnels: () => tunnel.tunnels(),
    stop: () => {
      stopping ??= (async () => {
        commandLabels?.stop();
        for (const { forwarder } of kubeClusters) forwarder.close();
        // Sessions first, so their clients get a proper SSH disconnect through the tunnel.
        await nodeService.close();
        await tunnel.stop();
      })();
      return stopping;
    },
  };
}

async function loadOrJoin(
  options: AgentOptions,
  base: URL,
  dataDir: string,
  hostKey: HostKey,
): Promise<AgentIdentity> {
  const { log } = options;
  const saved = await readIdentity(dataDir);
  if (saved) {
    if (options.token)
      log.info({ nodeId: saved.nodeId }, 'already joined: --token is not needed and was ignored');
    if (saved.proxy !== base.origin) {
      log.warn(
        { joined: saved.proxy, proxy: base.origin },
        'connecting to another proxy than the one this agent joined through',
      );
    }
    return saved;
  }
  if (!options.token) {
    throw new ConfigError(
      `this host has not joined a cluster yet (nothing in ${dataDir}): pass --token`,
    );
  }
  const answer = await postJoin(
    base,
    {
      token: options.token,
      hostname: os.hostname(),
      hostPublicKey: hostKey.publicKey,
      subKind: 'postern',
      os: `${os.type()} ${os.release()}`.slice(0, 64),
      labels: options.labels,
    },
    options.insecure,
  );
  const identity: AgentIdentity = { ...answer, proxy: base.origin };
  await writeIdentity(dataDir, identity);
  log.info({ nodeId: identity.nodeId, cluster: identity.clusterName }, 'joined the cluster');
  return identity;
}

/**
 * Why a host certificate will not do for this agent, if it will not: a certificate for another
 * key or node, or one past its end, would only fail later at the proxy, and less clearly.
 */
function certificateProblem(line: string, nodeId: string, hostKey: HostKey): string | undefined {
  let cert;
  try {
    cert = parseCertificate(line);
  } catch (error) {
    return `the host certificate is unreadable (${(error as Error).message})`;
  }
  if (cert.type !== 'host') return 'the host certificate is not a host certificate';
  if (!cert.publicKeyBlob.equals(parsePublicKey(hostKey.publicKey).blob)) {
    return 'the host certificate is for another host key';
  }
  if (!cert.principals.includes(nodeId)) return `the host certificate does not name node ${nodeId}`;
  if (cert.validBefore.getTime() <= Date.now()) {
    return `the host certificate expired at ${cert.validBefore.toISOString()}`;
  }
  return undefined;
}
