import { terminalFlowControl } from '@postern/contracts';

/** How far behind each reader of a session's output is: a viewer's unacknowledged bytes. */
export interface Backlog {
  /** Bytes per viewer not yet acknowledged or still queued for it. */
  viewers: number[];
  /** The recording is writing slower than the output arrives. */
  recordingBehind: boolean;
}

/**
 * Pauses the node's output channel while any viewer or the recording is more than
 * `pauseAbove` behind, and resumes it once every one of them is under `resumeBelow`: the SSH
 * window then holds the node back instead of the proxy buffering without bound.
 */
export class OutputGate {
  private pausedAt: number | undefined;

  constructor(
    private readonly channel: { pause(): void; resume(): void },
    private readonly now: () => number,
  ) {}

  /** When the output was paused, while it is. */
  get pausedSince(): number | undefined {
    return this.pausedAt;
  }

  pauseIfBehind(backlog: Backlog): void {
    if (this.pausedAt !== undefined) return;
    const behind =
      backlog.recordingBehind ||
      backlog.viewers.some((bytes) => bytes > terminalFlowControl.pauseAbove);
    if (!behind) return;
    this.channel.pause();
    this.pausedAt = this.now();
  }

  resumeIfCaughtUp(backlog: Backlog): void {
    if (this.pausedAt === undefined) return;
    const caughtUp =
      !backlog.recordingBehind &&
      backlog.viewers.every((bytes) => bytes < terminalFlowControl.resumeBelow);
    if (!caughtUp) return;
    this.pausedAt = undefined;
    this.channel.resume();
  }
}
