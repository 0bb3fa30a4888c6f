import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface SshConfigInput {
  user: string;
  cluster: string;
  /** `host:port` of the proxy's SSH listener. */
  sshProxyAddr: string;
  /** Node hostnames the user may see. */
  nodes: string[];
  /** Leaf clusters reached through this one: `*.<leaf>` goes through the proxy too. */
  leaves?: string[];
  keyPath: string;
  certPath: string;
  knownHostsPath: string;
}

export const sshConfigHeader = '# written by postern login; do not edit';

/**
 * AES-GCM first for every hop through the proxy. The proxy ends both SSH connections of a
 * `-J` jump, so it decrypts and re-encrypts every byte twice; AES-GCM runs on the CPU's AES
 * instructions (AES-NI, ARMv8 crypto) and costs the proxy and the client about half of what
 * ChaCha20-Poly1305, OpenSSH's own first choice, does (docs/ssh-proxy.md, `npm run bench:scp`).
 * The rest of OpenSSH's default list follows, so a server without AES-GCM still works. Spelled
 * out rather than `^aes128-gcm…` (OpenSSH 8.2+) so older clients read it too.
 */
export const proxyCiphers = [
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
  'chacha20-poly1305@openssh.com',
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
].join(',');

/**
 * The generated `ssh_config`: nodes (by name or `*.<cluster>`) are reached through the proxy
 * with ProxyJump, and both hops present the certificate and trust only the cluster's host CA.
 */
export function renderSshConfig(input: SshConfigInput): string {
  const { host, port } = splitHostPort(input.sshProxyAddr);
  const names = input.nodes.filter((name) => /^[A-Za-z0-9._-]+$/.test(name) && name !== host);
  const clusters = [input.cluster, ...(input.leaves ?? [])];
  const nodePatterns = [...new Set(names)].concat(clusters.map((c) => `*.${c}`)).join(' ');
  const jumpHost = host.includes(':') ? `[${host}]` : host;
  return [
    sshConfigHeader,
    `Host ${nodePatterns}`,
    `    ProxyJump ${input.user}@${jumpHost}:${port}`,
    `Host ${host} ${nodePatterns}`,
    `    IdentityFile ${quote(input.keyPath)}`,
    `    CertificateFile ${quote(input.certPath)}`,
    `    UserKnownHostsFile ${quote(input.knownHostsPath)}`,
    '    IdentitiesOnly yes',
    `    Ciphers ${proxyCiphers}`,
    '',
  ].join('\n');
}

/**
 * The leaf clusters a login's known_hosts lines trust (`@cert-authority *.<leaf> …`, one per
 * leaf the root trusts): their servers are reached through the root too.
 */
export function leavesOf(hostSigners: readonly string[]): string[] {
  const names = hostSigners.flatMap((line) => {
    const match = /^@cert-authority \*\.([A-Za-z0-9._-]+) /.exec(line.trim());
    return match ? [match[1]!] : [];
  });
  return [...new Set(names)];
}

/** ssh_config takes a path with spaces only in double quotes. */
const quote = (value: string) => (/\s/.test(value) ? `"${value}"` : value);

export function splitHostPort(addr: string): { host: string; port: string } {
  const match = /^\[(.+)\]:(\d+)$/.exec(addr) ?? /^([^:]+):(\d+)$/.exec(addr);
  if (!match) return { host: addr, port: '22' };
  return { host: match[1]!, port: match[2]! };
}

/**
 * Makes `~/.ssh/config` start with `Include <file>`, so plain `ssh node` works. Returns what it
 * did, for the CLI to say: 'added', or 'present' when the line was there already.
 */
export async function ensureInclude(
  userSshConfig: string,
  generated: string,
): Promise<'added' | 'present'> {
  const line = `Include ${quote(generated)}`;
  let current = '';
  try {
    current = await readFile(userSshConfig, 'utf8');
  } catch {
    current = '';
  }
  if (current.split('\n').some((each) => each.trim() === line)) return 'present';
  await mkdir(path.dirname(userSshConfig), { recursive: true, mode: 0o700 });
  // First, because ssh takes the first value it meets: an Include at the end would come after
  // a `Host *` block and lose to it.
  await writeFile(userSshConfig, `${line}\n${current}`, { mode: 0o600 });
  return 'added';
}
