import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { POSTERN_MFA_DEVICE_EXTENSION, type ClusterCa } from '../ssh/ca.service.js';
import { ed25519PrivateKeyObject, generateEd25519Key } from '../ssh/keys.js';
import { toOpenSshPrivateKey } from '../ssh/openssh-key-format.js';

export interface OpenSshClientSetup {
  /** ssh_config for the stock client: `proxy` is the SSH proxy, every other host goes through it. */
  configFile: string;
  dir: string;
  run(
    program: 'ssh' | 'scp' | 'sftp',
    args: string[],
    input?: string,
    env?: Record<string, string>,
  ): Promise<ClientResult>;
  spawn(program: 'ssh' | 'scp' | 'sftp', args: string[]): ChildProcessWithoutNullStreams;
  remove(): Promise<void>;
}

export interface ClientResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The files `postern login` leaves for the stock OpenSSH client, made directly from the CA: a key,
 * its user certificate, a known_hosts with the host CA, and an ssh_config that jumps through the
 * proxy. Tests run the real `ssh`, `scp` and `sftp` with it.
 */
export async function openSshClient(opts: {
  ca: ClusterCa;
  user: string;
  roles: string[];
  logins: string[];
  proxyPort: number;
  ttlMs?: number;
  permitPortForwarding?: boolean;
  /** pin_source_ip: the address the certificate is pinned to. */
  sourceIp?: string;
  /** The MFA device `postern login` proved the user with (`postern-mfa-device@postern.dev`). */
  mfaDevice?: string;
  /** The access requests the certificate assumed (`postern request assume`). */
  accessRequests?: string[];
}): Promise<OpenSshClientSetup> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-ssh-client-'));
  const key = generateEd25519Key();
  const keyFile = path.join(dir, 'id_ed25519');
  await writeFile(keyFile, toOpenSshPrivateKey(ed25519PrivateKeyObject(key.privateKeyPem)));
  await chmod(keyFile, 0o600);
  const certificate = opts.ca.issueUserCertificate({
    user: opts.user,
    roles: opts.roles,
    logins: opts.logins,
    publicKey: key.publicKey,
    ttlMs: opts.ttlMs ?? 600_000,
    permitPortForwarding: opts.permitPortForwarding ?? true,
    ...(opts.sourceIp ? { sourceIp: opts.sourceIp } : {}),
    ...(opts.accessRequests ? { accessRequests: opts.accessRequests } : {}),
    ...(opts.mfaDevice
      ? { extraExtensions: { [POSTERN_MFA_DEVICE_EXTENSION]: opts.mfaDevice } }
      : {}),
  });
  await writeFile(`${keyFile}-cert.pub`, `${certificate}\n`);
  await writeFile(path.join(dir, 'known_hosts'), `${opts.ca.knownHostsLine()}\n`);
  const configFile = path.join(dir, 'ssh_config');
  await writeFile(
    configFile,
    [
      'Host proxy',
      '  HostName 127.0.0.1',
      `  Port ${opts.proxyPort}`,
      `  User ${opts.user}`,
      'Host * !proxy',
      '  ProxyJump proxy',
      'Host *',
      `  IdentityFile ${keyFile}`,
      `  CertificateFile ${keyFile}-cert.pub`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path.join(dir, 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  BatchMode yes',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const argsFor = (args: string[]) => ['-F', configFile, ...args];
  return {
    configFile,
    dir,
    run: (program, args, input, env) =>
      new Promise((resolve) => {
        const child = execFile(
          program,
          argsFor(args),
          { timeout: 30_000, encoding: 'utf8', env: { ...process.env, ...env } },
          (error, stdout, stderr) =>
            resolve({
              code: error ? Number((error as { code?: number }).code ?? 1) : 0,
              stdout,
              stderr,
            }),
        );
        if (input !== undefined) child.stdin?.end(input);
        else child.stdin?.end();
      }),
    spawn: (program, args) => spawn(program, argsFor(args)),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
