import { randomUUID } from 'node:crypto';
import type { ActiveSessionJson, ParticipantMode } from '@postern/contracts';
import type { EndKind, Party } from '../../../modules/sessions/party.js';
import type { ExitStatus } from '../../../modules/sessions/session-ending.js';
import { exitStatus, failureStatus } from '../httpstream/status.js';
import type { ExecServerSession } from '../remotecommand/index.js';

/**
 * kubectl in a live exec session (its exec or attach, which the proxy took as the server): output
 * goes to its stdout, acknowledged once the transport takes it, so a kubectl that stops reading
 * pauses the session like a slow browser tab. At the end it gets the command's exit code, or a
 * Failure naming why the session ended (a lock, the proxy stopping).
 */
export class KubectlParty implements Party {
  readonly id = randomUUID();
  #closed = false;
  /** Bytes written while stdout was full, acknowledged when it drains. */
  #held = 0;

  constructor(
    private readonly exec: ExecServerSession,
    readonly user: string,
    readonly roles: readonly string[],
    readonly mode: ParticipantMode,
    private readonly acknowledge: (bytes: number) => void,
    private readonly exit: () => ExitStatus | undefined,
  ) {
    exec.stdout?.on('drain', () => {
      const bytes = this.#held;
      this.#held = 0;
      if (bytes > 0) this.acknowledge(bytes);
    });
  }

  output(chunk: Uint8Array): void {
    if (this.#closed || !this.exec.stdout) return this.acknowledge(chunk.length);
    if (this.exec.stdout.write(chunk) && this.#held === 0) this.acknowledge(chunk.length);
    else this.#held += chunk.length;
  }

  // A terminal client has no place for session events; joins and leaves show in the console.
  event(_event: Record<string, unknown>): void {}

  sessionData(_session: ActiveSessionJson): void {}

  end(reason: string, _kind?: EndKind): void {
    if (this.#closed) return;
    this.#closed = true;
    const exit = this.exit();
    const status =
      exit && !exit.signal ? exitStatus(exit.code) : failureStatus(`Postern: ${reason}`);
    void this.exec.finish(status).catch(() => this.exec.abort());
  }
}
