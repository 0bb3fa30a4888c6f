import path from 'node:path';
import { promisify } from 'node:util';
import type { Client, SFTPWrapper, Stats } from 'ssh2';
import { accessDenied, ApiError, badParameter, notFound } from '../../../errors.js';
import { openSftp } from '../../../ssh/client.js';

/** SFTP status codes (draft-ietf-secsh-filexfer-02 §7) that callers can act on. */
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

/**
 * The node's files as one login sees them, over one SFTP session. Paths are resolved here, so
 * `~`, `~/…` and relative paths mean the login's home directory on every kind of node.
 */
export class RemoteFiles {
  private constructor(
    readonly sftp: SFTPWrapper,
    readonly home: string,
  ) {}

  static async open(client: Client): Promise<RemoteFiles> {
    const sftp = await openSftp(client);
    // sftp-server starts in the login's home directory (sshd and our node service both do so).
    const home = await promisify(sftp.realpath.bind(sftp))('.');
    return new RemoteFiles(sftp, home);
  }

  /** An absolute, normalised path: `~` and relative paths start at the home directory. */
  resolve(location: string): string {
    const expanded = location === '~' ? '.' : location.replace(/^~\//, '');
    return path.posix.resolve(this.home, expanded);
  }

  /** Follows symlinks; undefined when nothing is there. */
  async stat(remotePath: string): Promise<Stats | undefined> {
    try {
      return await promisify(this.sftp.stat.bind(this.sftp))(remotePath);
    } catch (error) {
      if (sftpCode(error) === NO_SUCH_FILE) return undefined;
      throw remoteError(error, remotePath);
    }
  }

  async chmod(remotePath: string, mode: number): Promise<void> {
    await promisify(this.sftp.chmod.bind(this.sftp))(remotePath, mode & 0o7777);
  }

  /** Replaces `to` atomically when the node has OpenSSH's posix-rename extension. */
  async replace(from: string, to: string): Promise<void> {
    try {
      await promisify(this.sftp.ext_openssh_rename.bind(this.sftp))(from, to);
      return;
    } catch (error) {
      // ssh2 throws synchronously when the server lacks the extension; SFTP failures are real.
      if (sftpCode(error) !== undefined) throw remoteError(error, to);
    }
    // Plain SFTP rename refuses an existing target: remove it first (not atomic, but correct).
    await this.remove(to);
    await promisify(this.sftp.rename.bind(this.sftp))(from, to).catch((error: unknown) => {
      throw remoteError(error, to);
    });
  }

  /** Removes a file; a file already gone is fine. */
  async remove(remotePath: string): Promise<void> {
    try {
      await promisify(this.sftp.unlink.bind(this.sftp))(remotePath);
    } catch (error) {
      if (sftpCode(error) !== NO_SUCH_FILE) throw remoteError(error, remotePath);
    }
  }

  end(): void {
    this.sftp.end();
  }
}

function sftpCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** An SFTP failure as the caller should read it: what the node said, about which path. */
export function remoteError(error: unknown, remotePath: string): ApiError {
  if (error instanceof ApiError) return error;
  const code = sftpCode(error);
  if (code === NO_SUCH_FILE) return notFound(`${remotePath}: no such file or directory`);
  if (code === PERMISSION_DENIED) return accessDenied(`${remotePath}: permission denied`);
  const reason = error instanceof Error ? error.message : 'unknown error';
  if (code !== undefined) return badParameter(`${remotePath}: ${reason}`);
  return new ApiError('connection_problem', `file transfer failed: ${reason}`);
}
