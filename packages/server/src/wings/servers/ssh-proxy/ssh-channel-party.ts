import { randomUUID } from 'node:crypto';
import type { ActiveSessionJson, ParticipantMode } from '@postern/contracts';
import type { ServerChannel } from 'ssh2';
import type { Party } from '../../../modules/sessions/party.js';
import type { CredentialMarks } from '../../../access-control/locks/lock-watcher.js';

/**
 * An SSH client in a live session (`ssh -J … login@node` through the proxy). Output goes to its
 * channel as is; it is acknowledged once the channel takes it (the client's SSH window has room),
 * so a client that stops reading pauses the session like a slow browser tab does.
 */
export class SshChannelParty implements Party {
  readonly mfaDevice: string | undefined;
  readonly sessionMfaDevice: string | undefined;
  readonly accessRequests: readonly string[] | undefined;
  readonly botInstance: string | undefined;
  readonly id = randomUUID();
  private closed = false;
  /** Bytes written while the channel was full, acknowledged when it drains. */
  private held = 0;

  constructor(
    private readonly channel: ServerChannel,
    readonly user: string,
    readonly roles: readonly string[],
    readonly mode: ParticipantMode,
    private readonly acknowledge: (bytes: number) => void,
    /** How the program ended, when the session has ended (relayed as exit-status). */
    private readonly exit: () => { code: number; signal: string } | undefined,
    marks: CredentialMarks = {},
  ) {
    this.mfaDevice = marks.mfaDevice;
    this.sessionMfaDevice = marks.sessionMfaDevice;
    this.accessRequests = marks.accessRequests;
    this.botInstance = marks.botInstance;
    channel.on('drain', () => {
      const bytes = this.held;
      this.held = 0;
      if (bytes > 0) this.acknowledge(bytes);
    });
  }

  output(chunk: Uint8Array): void {
    if (this.closed) return;
    if (this.channel.write(chunk) && this.held === 0) this.acknowledge(chunk.length);
    else this.held += chunk.length;
  }

  // A terminal client has no place for session events; joins and leaves show in the console.
  event(_event: Record<string, unknown>): void {}

  sessionData(_session: ActiveSessionJson): void {}

  end(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    // A client that went away (a joiner's ssh killed) has a closed channel: writing to it
    // would throw out of the session's leave, uncaught.
    const { channel } = this;
    if (channel.destroyed || channel.writableEnded || channel.stderr.writableEnded) return;
    const exit = this.exit();
    if (!exit) this.channel.stderr.write(`\r\nPostern: ${reason}\r\n`);
    if (exit?.signal) this.channel.exit(exit.signal.replace(/^SIG/, ''), false, '');
    else this.channel.exit(exit?.code ?? 1);
    this.channel.end();
  }
}
