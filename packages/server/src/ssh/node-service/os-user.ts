import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';

/** The OS account a login maps to, and how to start processes as it. */
export interface LoginAccount {
  login: string;
  /** Present only when the service runs as root and must switch to the account. */
  uid?: number;
  gid?: number;
  home: string;
  shell: string;
}

export type AccountResolution = { ok: true; account: LoginAccount } | { ok: false; reason: string };

/** POSIX-ish user names; anything else is refused before it reaches getent. */
const LOGIN_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?$/;
const FALLBACK_SHELL = '/bin/sh';

/**
 * Maps a login to an OS account. As root the service may become any local user (looked up with
 * `getent passwd`, so NSS sources such as LDAP count); as anyone else it cannot switch users, so
 * only its own user may log in.
 */
export async function resolveLoginAccount(login: string): Promise<AccountResolution> {
  if (!LOGIN_PATTERN.test(login))
    return { ok: false, reason: `invalid login name ${JSON.stringify(login)}` };
  if (process.getuid?.() !== 0) return resolveAsOwnUser(login);
  const entry = await getentPasswd(login);
  if (!entry) return { ok: false, reason: `no OS user ${login} on this host` };
  return {
    ok: true,
    account: { login, uid: entry.uid, gid: entry.gid, home: entry.home, shell: entry.shell },
  };
}

function resolveAsOwnUser(login: string): AccountResolution {
  const self = ownUser();
  if (!self) {
    return {
      ok: false,
      reason: `this node service runs as user id ${process.getuid?.()}, which has no name on this host`,
    };
  }
  if (login !== self.username) {
    return {
      ok: false,
      reason: `this node service runs as ${self.username}, not root, so it can only log in as ${self.username}`,
    };
  }
  return { ok: true, account: { login, home: self.homedir, shell: self.shell || FALLBACK_SHELL } };
}

/** The account this process runs as; undefined for a user id with no passwd entry. */
function ownUser() {
  try {
    return userInfo();
  } catch {
    return undefined;
  }
}

/** The name of the OS user this process runs as, if it has one. */
export const ownUserName = (): string | undefined => ownUser()?.username;

async function getentPasswd(login: string) {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('getent', ['passwd', login], { timeout: 5000 }));
  } catch {
    return undefined; // exit code 2: no such user
  }
  // name:password:uid:gid:gecos:home:shell
  const fields = stdout.trim().split('\n')[0]?.split(':') ?? [];
  if (fields.length < 7 || fields[0] !== login) return undefined;
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) return undefined;
  return { uid, gid, home: fields[5] || '/', shell: fields[6] || FALLBACK_SHELL };
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

/**
 * How to start `file args` as the account. Switching with uid/gid alone gets supplementary groups
 * wrong: node-pty keeps ours (root's) and child_process drops them all. util-linux's setpriv
 * switches like a login does (`--init-groups`: the user's own groups), so we use it when present.
 */
export function launchAs(
  account: LoginAccount,
  file: string,
  args: string[],
): { file: string; args: string[]; ids: { uid?: number; gid?: number } } {
  if (account.uid === undefined || account.gid === undefined) return { file, args, ids: {} };
  if (!SETPRIV) return { file, args, ids: { uid: account.uid, gid: account.gid } };
  const switchUser = [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--init-groups', '--'];
  return { file: SETPRIV, args: [...switchUser, file, ...args], ids: {} };
}

/** The working directory for the account: its home, or / when the home does not exist. */
export const workingDirectory = (account: LoginAccount) =>
  existsSync(account.home) ? account.home : '/';

/** The environment every process of a session starts with, plus what the client may set. */
export function sessionEnvironment(
  account: LoginAccount,
  fromClient: Record<string, string>,
  term: string | undefined,
): Record<string, string> {
  const isRoot = (account.uid ?? process.getuid?.()) === 0;
  return {
    ...fromClient,
    HOME: account.home,
    USER: account.login,
    LOGNAME: account.login,
    SHELL: account.shell,
    PATH: isRoot
      ? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
      : '/usr/local/bin:/usr/bin:/bin',
    // The terminal that asked for the PTY decides TERM; without a PTY the client's TERM stands.
    ...(term ? { TERM: term } : {}),
  };
}
