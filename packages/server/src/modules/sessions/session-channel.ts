/**
 * What a live session runs over: a byte stream to a program on a resource (a shell over SSH today;
 * a Kubernetes exec, a database or desktop connection later). LiveSession knows only this
 * interface; each protocol has an adapter (ssh/ssh-session-channel.ts for SSH).
 */

/** How the program ended: its exit code, or the signal that killed it (code then null). */
export interface ChannelExit {
  code: number | null;
  signal?: string;
}

/** What a channel reports to the session running over it, once `start` attached it. */
export interface ChannelEvents {
  /** Output of the program, stdout and stderr alike (as a terminal shows them). */
  output(chunk: Uint8Array): void;
  /** The program ended; `closed` follows once the channel is gone. */
  exit(exit: ChannelExit): void;
  /**
   * The channel is gone for good. `lostReason` says why when the connection behind it failed or
   * closed (not the program ending): the session ends with it, and with the exit reason otherwise.
   * It may be reported more than once (the channel, then its connection); the first counts.
   */
  closed(lostReason?: string): void;
}

export interface SessionChannel {
  /** Attaches the session's handlers; output flows from here on (none is read before). */
  start(events: ChannelEvents): void;
  /** Input for the program. False: the channel is full and buffers it (the caller may wait). */
  write(data: string | Uint8Array): boolean;
  /**
   * Stops reading output until `resume`: the protocol's own flow control then holds the program
   * back (the SSH window), so a slow party never makes this process buffer without bound.
   */
  pause(): void;
  resume(): void;
  /** The terminal's new size (ignored by channels without a terminal). */
  resize(w: number, h: number): void;
  /** Sends a signal (a name without SIG, such as INT) to the program, where the protocol can. */
  signal(name: string): void;
  /** Closes the channel and its connection; `closed` follows. */
  close(): void;
  /** Output this process holds: received and not yet read by the session. */
  heldBytes(): number;
}
