import type { ActiveSessionJson, ParticipantMode } from '@postern/contracts';

/**
 * Why a party's session ends, for how the party tells its client: `revoked` (access or
 * credentials were taken away, shown as an error), `shutdown` (the proxy is stopping: a
 * WebSocket closes with 1001 "going away"), or an ordinary end.
 */
export type EndKind = 'ended' | 'revoked' | 'shutdown';

/**
 * One participant's connection to a live session: a browser tab, or an SSH client through the SSH proxy.
 * The session calls these; the party turns them into frames on its own transport.
 */
export interface Party {
  readonly id: string;
  readonly user: string;
  readonly roles: readonly string[];
  readonly mode: ParticipantMode;
  /** The MFA device the party's credential was signed in with: an `mfa_device` lock ends it. */
  readonly mfaDevice?: string | undefined;
  /** The device of the per-session MFA check it joined or started with: the same. */
  readonly sessionMfaDevice?: string | undefined;
  /** The access requests its credential assumed: an `access_request` lock on one ends it. */
  readonly accessRequests?: readonly string[] | undefined;
  /** The bot instance its certificate was issued to: a `bot_instance` lock ends it. */
  readonly botInstance?: string | undefined;
  /** Terminal output, cut on character boundaries. */
  output(chunk: Uint8Array): void;
  /** A session event for the terminal (join, leave, resize), reference frame `a`. */
  event(event: Record<string, unknown>): void;
  /** The session's public shape, reference frame `s`. */
  sessionData(session: ActiveSessionJson): void;
  /** The session ended (or this party was removed from it); the party closes its transport. */
  end(reason: string, kind?: EndKind): void;
  /** An error the client prints without the session ending (a refused resize), if it can. */
  error?(message: string): void;
  /** Output written and still queued in this process (not yet taken by the OS), if known. */
  queuedBytes?(): number;
}
