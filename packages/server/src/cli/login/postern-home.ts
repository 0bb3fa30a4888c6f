import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../config/config-error.js';

/** What `postern login` remembers between commands (`profile.json`); no secret is in it. */
export const profileSchema = z.object({
  /** The proxy's base URL, `https://host:port` or `http://…`. */
  proxy: z.string(),
  /** `--insecure` at login: later calls to the same proxy skip the TLS check too. */
  insecure: z.boolean(),
  user: z.string(),
  cluster: z.string(),
  /** `host:port` of the SSH proxy listener. */
  ssh_proxy_addr: z.string(),
  /** RFC 3339: when the certificate stops working. */
  expires: z.string(),
  key_path: z.string(),
  cert_path: z.string(),
});
export type Profile = z.infer<typeof profileSchema>;

/**
 * The files under `~/.postern` (or `$POSTERN_HOME`):
 *   keys/<proxy-host>/<user>            the private key (0600)
 *   keys/<proxy-host>/<user>-cert.pub   its certificate
 *   known_hosts                         the cluster's host CA (@cert-authority lines)
 *   ssh_config                          Host blocks that route ssh through the proxy
 *   profile.json                        the current login
 */
export class PosternHome {
  readonly dir: string;

  constructor(env: NodeJS.ProcessEnv) {
    this.dir = path.resolve(env.POSTERN_HOME || path.join(env.HOME || homedir(), '.postern'));
  }

  get knownHosts() {
    return path.join(this.dir, 'known_hosts');
  }

  get sshConfig() {
    return path.join(this.dir, 'ssh_config');
  }

  get profile() {
    return path.join(this.dir, 'profile.json');
  }

  keyPath(proxyHost: string, user: string) {
    return path.join(this.dir, 'keys', safeSegment(proxyHost), safeSegment(user));
  }

  async writeKeys(keyPath: string, privateKey: string, certificate: string): Promise<void> {
    // The directory too: nobody else should even list whose keys are here.
    await mkdir(path.dirname(keyPath), { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    await writePrivate(keyPath, privateKey);
    await writeFile(`${keyPath}-cert.pub`, `${certificate.trim()}\n`, { mode: 0o644 });
  }

  /** Where `postern db login` keeps a database's certificate, key and CA. */
  databaseFiles(proxyHost: string, database: string) {
    const base = path.join(this.dir, 'db', safeSegment(proxyHost), safeSegment(database));
    return { cert: `${base}.crt`, key: `${base}.key`, ca: `${base}-ca.crt` };
  }

  /**
   * Where `postern kube login` keeps a Kubernetes cluster's certificate, key and CA, and the
   * credential plugin the last one-minute certificate that passed a per-session MFA check.
   */
  kubeFiles(proxyHost: string, cluster: string) {
    const base = path.join(this.dir, 'kube', safeSegment(proxyHost), safeSegment(cluster));
    return {
      cert: `${base}.crt`,
      key: `${base}.key`,
      ca: `${base}-ca.crt`,
      checked: `${base}-checked.json`,
    };
  }

  /** A file only its owner reads (a credential), its directory made if need be. */
  async writeSecret(file: string, text: string): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writePrivate(file, text);
  }

  /** A certificate, its key (0600) and the CA to check the server with, from a wing's login. */
  /**
   * The CA, and the client certificate and key when there are any; without them, earlier ones
   * are removed (they would only be stale).
   */
  async writeCertificateFiles(
    files: { cert: string; key: string; ca: string },
    pems: { cert?: string; key?: string; ca: string },
  ): Promise<void> {
    await mkdir(path.dirname(files.cert), { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    if (pems.cert && pems.key) {
      await writePrivate(files.key, pems.key);
      await writeFile(files.cert, pems.cert, { mode: 0o644 });
    } else {
      await rm(files.key, { force: true });
      await rm(files.cert, { force: true });
    }
    await writeFile(files.ca, pems.ca, { mode: 0o644 });
  }

  async writeKnownHosts(lines: string[]): Promise<void> {
    await writeFile(this.knownHosts, `${lines.map((line) => line.trim()).join('\n')}\n`, {
      mode: 0o644,
    });
  }

  async writeSshConfig(text: string): Promise<void> {
    await writeFile(this.sshConfig, text, { mode: 0o644 });
  }

  async writeProfile(profile: Profile): Promise<void> {
    await writePrivate(this.profile, `${JSON.stringify(profile, null, 2)}\n`);
  }

  /** The current login, or a clear error when there is none. */
  async readProfile(): Promise<Profile> {
    let text: string;
    try {
      text = await readFile(this.profile, 'utf8');
    } catch {
      throw new ConfigError('not logged in: run postern login --proxy HOST:PORT');
    }
    const parsed = profileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      throw new ConfigError(`${this.profile} is damaged: run postern login again`);
    }
    return parsed.data;
  }

  /** Removes the login's key, certificate and profile; known_hosts and ssh_config stay. */
  async removeLogin(profile: Profile): Promise<string[]> {
    const files = [profile.key_path, profile.cert_path, this.profile];
    for (const file of files) await rm(file, { force: true });
    return files;
  }
}

/** A private file is created 0600 and stays so even if it existed with wider modes. */
async function writePrivate(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o600 });
  await chmod(file, 0o600);
}

/** A host or user name as one path segment, so no name can climb out of keys/. */
function safeSegment(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._@-]/g, '_');
  return safe === '.' || safe === '..' || safe === '' ? '_' : safe;
}
