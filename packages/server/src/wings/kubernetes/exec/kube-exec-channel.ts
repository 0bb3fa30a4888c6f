import type { ChannelEvents, SessionChannel } from '../../../modules/sessions/session-channel.js';
import { exitCodeOf } from '../httpstream/status.js';
import type { ExecClientSession } from '../remotecommand/index.js';

/**
 * A live session over an exec or attach the proxy opened to the cluster (remotecommand's client
 * side): the container's output in, keystrokes and sizes out. Pausing stops reading the exec's
 * stdout, which holds the container back through the transport's own flow control.
 */
export class KubeExecChannel implements SessionChannel {
  #closed = false;

  constructor(private readonly exec: ExecClientSession) {}

  start(events: ChannelEvents): void {
    const output = (chunk: Buffer) => events.output(chunk);
    this.exec.stdout?.on('data', output);
    this.exec.stderr?.on('data', output);
    for (const stream of [this.exec.stdout, this.exec.stderr]) {
      stream?.on('error', () => undefined);
    }
    void this.exec.status.then((status) => {
      const code = exitCodeOf(status);
      if (code !== undefined) events.exit({ code });
      this.#closed = true;
      events.closed(code === undefined ? (status.message ?? 'the exec ended') : undefined);
    });
  }

  write(data: string | Uint8Array): boolean {
    if (this.#closed || !this.exec.stdin) return true;
    return this.exec.stdin.write(data);
  }

  pause(): void {
    this.exec.stdout?.pause();
    this.exec.stderr?.pause();
  }

  resume(): void {
    this.exec.stdout?.resume();
    this.exec.stderr?.resume();
  }

  resize(w: number, h: number): void {
    if (!this.#closed) this.exec.resize(w, h);
  }

  /** An exec carries no signals: Ctrl-C reaches the container as the terminal's byte. */
  signal(_name: string): void {}

  close(): void {
    this.#closed = true;
    this.exec.close();
  }

  heldBytes(): number {
    return (this.exec.stdout?.readableLength ?? 0) + (this.exec.stderr?.readableLength ?? 0);
  }
}
