import { spawn } from 'node:child_process';
import { userInfo } from 'node:os';
import { ConfigError } from '../../config/config-error.js';
import { leafProxyHost } from '../../modules/trusted-clusters/cluster-ssh.js';
import { leafNamed, listNodes } from './nodes.js';
import { PosternHome, type Profile } from './postern-home.js';
import { ProxyClient } from './proxy-client.js';
import { currentLogin, selectorOf } from './session-commands.js';
import { sessionMfaCertificate, type SessionCertificate } from './session-mfa.js';
import {
  nodesMatching,
  runOnNodes,
  splitSshArguments,
  takeClusterOption,
  type PipedSshRunner,
} from './ssh-fanout.js';

/**
 * `postern ssh`, `scp` and `join`: the system's OpenSSH with the generated config, and, when the
 * roles ask for per-session MFA, a one-minute certificate for the sessions asked for.
 */

/** Runs the system's ssh or scp with these arguments, its stdio ours; resolves with its exit code. */
export type OpenSshRunner = (program: 'ssh' | 'scp', args: string[]) => Promise<number>;

export const systemOpenSsh: OpenSshRunner = (program, args) =>
  new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: 'inherit' });
    child.on('error', (error) =>
      reject(new ConfigError(`cannot run ${program}: ${error.message}`)),
    );
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });

export const systemPipedSsh: PipedSshRunner = (args, sink) =>
  new Promise((resolve, reject) => {
    const child = spawn('ssh', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => sink.stdout(chunk));
    child.stderr.on('data', (chunk: Buffer) => sink.stderr(chunk));
    child.on('error', (error) => reject(new ConfigError(`cannot run ssh: ${error.message}`)));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });

/** How `postern ssh` runs ssh: as itself for one node, piped for each of a label selector's. */
export interface SshRunners {
  run: OpenSshRunner;
  runPiped: PipedSshRunner;
  write: { stdout(text: string): void; stderr(text: string): void };
  /** Asks the user for an authenticator code (per-session MFA), without echo. */
  askCode: (question: string) => Promise<string>;
}

/**
 * `postern ssh [ssh options] [login@]node [command…]`: the system ssh with the generated config,
 * its options passed as given (-L, -R and -D forwarding, -N, -t, -A), as `tsh ssh` takes them.
 * `[login@]name=value[,name=value] command…` runs the command on every node with those labels
 * (ssh-fanout.ts). `--cluster LEAF` reaches a trusted leaf's servers through this proxy.
 */
export async function ssh(env: NodeJS.ProcessEnv, given: string[], runners: SshRunners) {
  const profile = await currentLogin(env);
  const { leaf, args } = leafOption(given, profile);
  const split = splitSshArguments(args);
  if (!split) throw new ConfigError('usage: postern ssh [ssh options] [login@]node [command...]');
  const config = ['-F', new PosternHome(env).sshConfig];
  const loginPrefix = split.destination.slice(0, split.destination.lastIndexOf('@') + 1);
  const host = split.destination.slice(loginPrefix.length);
  const login = loginPrefix.slice(0, -1) || optionValue(split.options, '-l') || localUser(env);
  const selector = selectorOf(host);
  if (!selector) {
    // A leaf's server by its name there: `<name>.<leaf>`, which ssh_config routes through here.
    const name = leaf && !host.endsWith(`.${leaf}`) ? `${host}.${leaf}` : host;
    const sshArgs = [...split.options, `${loginPrefix}${name}`, ...split.command];
    const certificate = await sessionMfaCertificate(env, [{ node: name, login }], runners.askCode);
    try {
      return await runners.run('ssh', [...config, ...certificateOption(certificate), ...sshArgs]);
    } finally {
      await certificate?.remove();
    }
  }
  if (split.command.length === 0) {
    throw new ConfigError(`${host} names nodes by label: give a command to run on each of them`);
  }
  const client = new ProxyClient(new URL(profile.proxy), profile.insecure);
  const nodes = nodesMatching(await listNodes(client, profile, '', leaf), selector);
  const where = leaf ? ` in ${leaf}` : '';
  if (nodes.length === 0)
    throw new ConfigError(`no node you may reach${where} has the labels ${host}`);
  // One code for all of them: the certificate names every session it may open.
  const cluster = leaf ?? profile.cluster;
  const targets = nodes.map((node) => ({ node: leaf ? `${node.id}.${leaf}` : node.id, login }));
  const certificate = await sessionMfaCertificate(env, targets, runners.askCode);
  try {
    return await runOnNodes({
      nodes,
      loginPrefix,
      cluster,
      options: [...config, ...certificateOption(certificate), ...split.options],
      command: split.command,
      run: runners.runPiped,
      write: runners.write,
    });
  } finally {
    await certificate?.remove();
  }
}

/** `--cluster LEAF` taken from ssh's options (nodes.ts `leafNamed`: the cluster signed in to is none). */
function leafOption(given: string[], profile: Profile): { leaf?: string; args: string[] } {
  let taken: ReturnType<typeof takeClusterOption>;
  try {
    taken = takeClusterOption(given);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const leaf = leafNamed(taken.cluster, profile);
  return { ...(leaf ? { leaf } : {}), args: taken.args };
}

/** ssh tries the per-session certificate first: options given on its command line come first. */
const certificateOption = (certificate: SessionCertificate | undefined) =>
  certificate ? ['-o', `CertificateFile=${certificate.file}`] : [];

/** The value of an option such as `-l root` or `-lroot`, as ssh reads it. */
function optionValue(options: readonly string[], flag: string): string | undefined {
  for (let at = options.length - 1; at >= 0; at -= 1) {
    const option = options[at]!;
    if (option === flag) return options[at + 1];
    if (option.startsWith(flag) && option.length > flag.length) return option.slice(flag.length);
  }
  return undefined;
}

/** ssh's default login: the local user's name. */
const localUser = (env: NodeJS.ProcessEnv) => env.USER || userInfo().username;

/**
 * `postern join SID [--mode observer|moderator|peer] [--cluster LEAF]`: the system ssh to the SSH
 * proxy itself, whose `join` command attaches this terminal to the live session (Ctrl-C leaves;
 * a moderator's `t` ends the session). A trusted leaf's proxy is reached through the root as
 * `_proxy.<leaf>`, which the generated ssh_config routes like the leaf's servers.
 */
export async function join(
  env: NodeJS.ProcessEnv,
  sid: string,
  mode: string | undefined,
  run: OpenSshRunner,
  askCode: SshRunners['askCode'],
  cluster?: string,
): Promise<number> {
  const profile = await currentLogin(env);
  if (!/^[0-9a-f-]{36}$/.test(sid)) throw new ConfigError(`${sid} is not a session id`);
  if (mode !== undefined && !['observer', 'moderator', 'peer'].includes(mode)) {
    throw new ConfigError(`--mode ${mode}: expected observer, moderator or peer`);
  }
  const leaf = leafNamed(cluster, profile);
  const at = profile.ssh_proxy_addr.lastIndexOf(':');
  const [host, port] = leaf
    ? [leafProxyHost(leaf), undefined]
    : [profile.ssh_proxy_addr.slice(0, at), profile.ssh_proxy_addr.slice(at + 1)];
  const config = new PosternHome(env).sshConfig;
  const command = `join ${sid}${mode ? ` ${mode}` : ''}`;
  const asked = { kind: 'join' as const, name: sid, ...(leaf ? { cluster: leaf } : {}) };
  const certificate = await sessionMfaCertificate(env, [asked], askCode);
  const target = `${profile.user}@${host}`;
  try {
    return await run('ssh', [
      '-F',
      config,
      ...certificateOption(certificate),
      '-t',
      ...(port ? ['-p', port] : []),
      target,
      command,
    ]);
  } finally {
    await certificate?.remove();
  }
}

/**
 * `postern scp [options] source… target`: the system scp with the generated config, so
 * `[login@]node:path` works without the Include line in ~/.ssh/config. Options go to scp as given.
 */
export async function scp(
  env: NodeJS.ProcessEnv,
  args: string[],
  run: OpenSshRunner,
  askCode: SshRunners['askCode'],
) {
  await currentLogin(env);
  if (!args.some((arg) => !arg.startsWith('-'))) {
    throw new ConfigError('usage: postern scp [options] source... target');
  }
  // scp's -l is a bandwidth limit: the login is the operand's own, or the local user's.
  const targets = remoteTargets(args, localUser(env));
  const certificate = targets.length
    ? await sessionMfaCertificate(env, targets, askCode)
    : undefined;
  try {
    return await run('scp', [
      '-F',
      new PosternHome(env).sshConfig,
      ...certificateOption(certificate),
      ...args,
    ]);
  } finally {
    await certificate?.remove();
  }
}

/** The `[login@]node:path` operands of scp, as the sessions they open (each node once). */
function remoteTargets(args: readonly string[], defaultLogin: string) {
  const seen = new Map<string, { node: string; login: string }>();
  for (const arg of args) {
    const match = /^(?:([^@/:]+)@)?([^@/:[\]]+):/.exec(arg);
    if (arg.startsWith('-') || !match) continue;
    const target = { login: match[1] ?? defaultLogin, node: match[2]! };
    seen.set(`${target.login}@${target.node}`, target);
  }
  return [...seen.values()];
}
