import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../config/config-error.js';
import { POSTERN_ROLES_EXTENSION } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { printTable, type Print, labelListCell } from '../table.js';
import { leafNamed, listNodes } from './nodes.js';
import { labelSelector, nodesMatching } from './ssh-fanout.js';
import { PosternHome, type Profile } from './postern-home.js';
import { ProxyClient } from './proxy-client.js';

/** The current login, refused once its certificate has expired. */
export async function currentLogin(env: NodeJS.ProcessEnv, now = Date.now()): Promise<Profile> {
  const profile = await new PosternHome(env).readProfile();
  if (Date.parse(profile.expires) <= now) {
    throw new ConfigError(`your login expired at ${profile.expires}: run postern login again`);
  }
  return profile;
}

/** `postern status`: who, where, which logins, until when (read from the certificate itself). */
export async function status(env: NodeJS.ProcessEnv, print: Print, now = Date.now()) {
  const profile = await new PosternHome(env).readProfile();
  const cert = parseCertificate((await readFile(profile.cert_path, 'utf8')).trim());
  const left = cert.validBefore.getTime() - now;
  const validity =
    left > 0
      ? `${cert.validBefore.toISOString()} (${timeLeft(left)} left)`
      : `${cert.validBefore.toISOString()} (EXPIRED: run postern login again)`;
  const roles = cert.extensions[POSTERN_ROLES_EXTENSION] ?? '';
  printTable(
    ['', ''],
    [
      ['Proxy:', profile.proxy],
      ['User:', cert.keyId],
      ['Cluster:', profile.cluster],
      ['Roles:', roles.split(',').filter(Boolean).join(', ') || '-'],
      ['Logins:', cert.principals.join(', ') || '-'],
      ['Valid until:', validity],
      ['SSH proxy:', profile.ssh_proxy_addr],
    ],
    (line) => {
      if (line.trim()) print(line);
    },
  );
}

/** `postern ls`: the nodes the user may reach, from the proxy. */
export interface LsOptions {
  /** `name=value[,name=value]`: only nodes with all these labels. */
  labels?: string;
  search?: string;
  format?: string;
  /** A trusted leaf cluster of the proxy signed in to: its servers instead. */
  cluster?: string;
}

/** `postern ls [name=value,...] [--search WORDS] [--format text|json] [--cluster LEAF]`. */
export async function ls(env: NodeJS.ProcessEnv, print: Print, options: LsOptions = {}) {
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'json') {
    throw new ConfigError(`--format is text or json, not ${format}`);
  }
  const selector = options.labels ? selectorOf(options.labels) : undefined;
  if (options.labels && !selector) {
    throw new ConfigError(`not a label selector: ${options.labels} (use name=value[,name=value])`);
  }
  const profile = await currentLogin(env);
  const client = new ProxyClient(new URL(profile.proxy), profile.insecure);
  // A leaf's servers come through the root (docs/trusted-clusters.md) and are reached as
  // <hostname>.<leaf>, the names ssh_config routes through the root.
  const leaf = leafNamed(options.cluster, profile);
  const listed = await listNodes(client, profile, options.search ?? '', leaf);
  const nodes = selector ? nodesMatching(listed, selector) : listed;
  if (format === 'json') {
    const rows = nodes.map((node) => ({
      id: node.id,
      hostname: node.hostname,
      ...(leaf ? { cluster: leaf } : {}),
      addr: node.addr,
      tunnel: node.tunnel,
      labels: Object.fromEntries(node.tags.map((tag) => [tag.name, tag.value])),
      logins: node.sshLogins,
      status: node.status,
    }));
    return print(JSON.stringify(rows, null, 2));
  }
  const rows = nodes.map((node) => [
    leaf ? `${node.hostname}.${leaf}` : node.hostname,
    node.addr || (node.tunnel ? '⟵ tunnel' : ''),
    node.sshLogins.join(','),
    labelListCell(node.tags),
  ]);
  printTable(['Node', 'Address', 'Logins', 'Labels'], rows, print);
}

/** A label selector (`env=prod,team=web`) as the CLI reads it, or undefined for a host. */
export function selectorOf(host: string) {
  try {
    return labelSelector(host);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** `postern logout`: the key, certificate and profile go; known_hosts and ssh_config stay. */
export async function logout(env: NodeJS.ProcessEnv, print: Print) {
  const home = new PosternHome(env);
  const profile = await home.readProfile();
  await home.removeLogin(profile);
  print(
    `Logged out ${profile.user} from ${profile.cluster}: removed the key, certificate and profile.`,
  );
}

/** Hours and minutes, as people read a remaining time: `1h59m`, `12m`, `under a minute`. */
export function timeLeft(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours}h${minutes % 60}m` : `${minutes}m`;
}
