import { z } from 'zod';
import type { Backend } from '../../backend/index.js';
import { CompareFailedError, NotFoundError } from '../../backend/index.js';
import type { Clock } from '../../clock.js';

/** One file transfer a moderated session's participants approved (file-transfer-requests.ts). */
export interface ApprovedTransfer {
  sessionId: string;
  requestId: string;
  /** The session's owner, who asked: only they may make it. */
  user: string;
  /** The session's server and login: the transfer goes there, as that login. */
  nodeId: string;
  login: string;
  download: boolean;
  location: string;
  filename?: string;
}

const approvedTransferSchema = z.object({
  sessionId: z.string(),
  requestId: z.string(),
  user: z.string(),
  nodeId: z.string(),
  login: z.string(),
  download: z.boolean(),
  location: z.string(),
  filename: z.string().optional(),
});

/** How long an approval waits for its transfer: the console makes it at once. */
export const approvedTransferTtlMs = 5 * 60_000;

const prefix = '/approved_file_transfers/';
const keyOf = (sessionId: string, requestId: string) =>
  `${prefix}${encodeURIComponent(sessionId)}/${encodeURIComponent(requestId)}`;

/**
 * Approvals kept in the backend, so that the transfer may land on any proxy of the cluster (the
 * console's HTTP call is balanced apart from its terminal socket). Each is taken once: a second
 * transfer with the same ids, here or on another proxy, finds nothing. The session's end drops
 * the ones left, and a time to live bounds the rest.
 */
export class ApprovedTransfers {
  constructor(private readonly deps: { backend: Backend; now: Clock }) {}

  async approve(transfer: ApprovedTransfer): Promise<void> {
    await this.deps.backend.upsert({
      key: keyOf(transfer.sessionId, transfer.requestId),
      value: JSON.stringify(transfer),
      expires: new Date(this.deps.now() + approvedTransferTtlMs),
    });
  }

  /**
   * The approval with these ids, removed, when `matches` accepts it; else undefined (and an
   * approval that does not match stays for the transfer it was for).
   */
  async take(
    sessionId: string,
    requestId: string,
    matches: (transfer: ApprovedTransfer) => boolean,
  ): Promise<ApprovedTransfer | undefined> {
    const key = keyOf(sessionId, requestId);
    const item = await this.deps.backend.get(key);
    if (!item || (item.expires && item.expires.getTime() <= this.deps.now())) return undefined;
    const parsed = approvedTransferSchema.safeParse(safeJson(item.value));
    if (!parsed.success || !matches(parsed.data)) return undefined;
    try {
      // Only the taker that removes this very revision gets it: two at once, one wins.
      await this.deps.backend.delete(key, item.revision);
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof CompareFailedError) return undefined;
      throw error;
    }
    return parsed.data;
  }

  /** The session ended: what it approved and nobody took goes with it. */
  async dropSession(sessionId: string): Promise<void> {
    await this.deps.backend.deleteRange(`${prefix}${encodeURIComponent(sessionId)}/`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
