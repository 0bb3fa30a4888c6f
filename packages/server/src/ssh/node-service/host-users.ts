import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { HostUserGrant } from '../host-user-extension.js';

const run = promisify(execFile);

/** Every user the node service made is in this group: only those are changed or deleted. */
export const managedGroup = 'postern-system';
const sudoersDir = '/etc/sudoers.d';
const sudoersFile = (login: string) => `${sudoersDir}/postern-${login}`;
const shell = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

export type HostUserLog = (msg: string, fields?: Record<string, unknown>) => void;

/**
 * The OS users the node service makes for logins that have none (the certificate's
 * `postern-host-user` grant, ssh/host-user-extension.ts), as root: the user with its home, its
 * groups (made when missing) and its sudoers lines. A user the service did not make is never
 * changed. With `insecure-drop`, the user is deleted, home and all, when the last connection
 * that logged in as it ends. One login's changes run one at a time.
 */
export class HostUsers {
  readonly #queue = new Map<string, Promise<unknown>>();
  /** Open connections per login made here, and whether the last grant said to drop it. */
  readonly #held = new Map<string, { connections: number; drop: boolean }>();

  constructor(private readonly log: HostUserLog) {}

  /** Makes (or updates, if it is ours) the user; the reason when it cannot. */
  ensure(login: string, grant: HostUserGrant): Promise<string | undefined> {
    return this.#serial(login, () => this.#ensure(login, grant));
  }

  /** A connection logged in as a user made here: counted until it closes (`release`). */
  hold(login: string, grant: HostUserGrant): void {
    const held = this.#held.get(login) ?? { connections: 0, drop: false };
    held.connections += 1;
    held.drop = grant.mode === 'insecure-drop';
    this.#held.set(login, held);
  }

  /** That connection ended: with the last one, an `insecure-drop` user goes. */
  release(login: string): Promise<void> {
    const held = this.#held.get(login);
    if (!held) return Promise.resolve();
    held.connections -= 1;
    if (held.connections > 0) return Promise.resolve();
    this.#held.delete(login);
    if (!held.drop) return Promise.resolve();
    return this.#serial(login, () => this.#drop(login)).then(() => undefined);
  }

  async #ensure(login: string, grant: HostUserGrant): Promise<string | undefined> {
    try {
      for (const group of [managedGroup, ...grant.groups]) await run('groupadd', ['-f', group]);
      const groups = [managedGroup, ...grant.groups].join(',');
      if (await exists(login)) {
        if (!(await isManaged(login))) return undefined; // someone else's: left as it is
        await run('usermod', ['-G', groups, login]);
      } else {
        await run('useradd', ['--create-home', '--shell', shell, '--groups', groups, login]);
        this.log('host user created', { login, groups: grant.groups, mode: grant.mode });
      }
      await this.#sudoers(login, grant.sudoers);
      return undefined;
    } catch (error) {
      this.log('host user not created', { login, error: (error as Error).message });
      return `the OS user ${login} could not be created on this host`;
    }
  }

  /** Writes the login's sudoers file (checked by visudo when it is there), or removes it. */
  async #sudoers(login: string, lines: string[]): Promise<void> {
    const file = sudoersFile(login);
    if (lines.length === 0 || !existsSync(sudoersDir)) {
      await rm(file, { force: true });
      return;
    }
    await writeFile(file, lines.map((line) => `${login} ${line}\n`).join(''), { mode: 0o440 });
    try {
      await run('visudo', ['-cf', file]);
    } catch (error) {
      // visudo missing (no sudo installed) is fine; a file it refuses must not stay.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      await rm(file, { force: true });
      this.log('host user sudoers refused', { login, error: (error as Error).message });
    }
  }

  async #drop(login: string): Promise<void> {
    if (!(await exists(login)) || !(await isManaged(login))) return;
    // Its processes end with its sessions; give the last ones a moment.
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        await run('userdel', ['--remove', login]);
        await rm(sudoersFile(login), { force: true });
        this.log('host user deleted', { login });
        return;
      } catch (error) {
        if (attempt === 9) {
          this.log('host user not deleted', { login, error: (error as Error).message });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  #serial<T>(login: string, step: () => Promise<T>): Promise<T> {
    const previous = this.#queue.get(login) ?? Promise.resolve();
    const next = previous.then(step, step);
    const settled = next.catch(() => undefined);
    this.#queue.set(login, settled);
    void settled.then(() => {
      if (this.#queue.get(login) === settled) this.#queue.delete(login);
    });
    return next;
  }
}

async function exists(login: string): Promise<boolean> {
  try {
    await run('getent', ['passwd', login]);
    return true;
  } catch {
    return false;
  }
}

async function isManaged(login: string): Promise<boolean> {
  try {
    const { stdout } = await run('id', ['-nG', login]);
    return stdout.trim().split(/\s+/).includes(managedGroup);
  } catch {
    return false;
  }
}
