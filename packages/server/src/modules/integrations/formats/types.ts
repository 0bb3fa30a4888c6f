import type { IntegrationType } from '@postern/contracts';
import type { SecretField } from '../integrations.store.js';
import type { AccessRequestNotice } from '../notice.js';
import type { UrlGuard } from '../url-guard.js';

/** An integration with its secrets opened, for the one delivery that needs them. */
export interface OpenedIntegration {
  name: string;
  type: IntegrationType;
  settings: Record<string, unknown>;
  secrets: Partial<Record<SecretField, string>>;
}

/** What goes out: a notice, or the Send test message of the Integrations screen. */
export type Outgoing =
  | { kind: 'notice'; notice: AccessRequestNotice }
  | { kind: 'test'; integration: string; actor: string; consoleUrl: string };

export interface SendContext {
  guard: UrlGuard;
  /** Aborted when the attempt's time is up: the sender lets go of its socket. */
  signal: AbortSignal;
  /** The e-mail address of a user, if they have one (email integrations). */
  emailOf: (user: string) => string | undefined;
  /** Seconds since the epoch, for the webhook's timestamp. */
  now: () => number;
}

export type Sender = (
  integration: OpenedIntegration,
  message: Outgoing,
  ctx: SendContext,
) => Promise<void>;
