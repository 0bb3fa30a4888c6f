import { sessionMfaGrantMs, type MfaChallenge, type SessionMfaResponse } from '@postern/contracts';
import type { MfaReply } from '../../../components/SessionMfaDialog';
import {
  isNodeMfaRequired,
  requestSessionMfaChallenge,
  verifySessionMfa,
} from '../../../api/sessionMfa';
import type { TransferEndpoint } from './transferClient';

/** The proxy's per-session MFA calls, which tests replace. */
export interface FilesMfaApi {
  required: typeof isNodeMfaRequired;
  challenge: typeof requestSessionMfaChallenge;
  verify: typeof verifySessionMfa;
}

const proxyApi: FilesMfaApi = {
  required: isNodeMfaRequired,
  challenge: requestSessionMfaChallenge,
  verify: verifySessionMfa,
};

export const filesMfaCancelledMessage = 'The MFA check was cancelled';

/**
 * require_session_mfa before the console's file transfers to a server: asks the proxy whether
 * the roles want a check; if they do, gets a challenge for `files:<serverId>`, has the user
 * answer it in the dialog (`ask`), and hands the answer to `mfa/session/verify`, after which the
 * transfers may start for a minute. Rejects when the user cancels or the answer is refused.
 */
export function filesMfaCheck(
  endpoint: TransferEndpoint,
  ask: (challenge: MfaChallenge, reply: MfaReply) => void,
  calls: FilesMfaApi = proxyApi,
): () => Promise<void> {
  return async () => {
    const { clusterId, serverId, login } = endpoint;
    if (!(await calls.required(clusterId, serverId, login))) return;
    const resource = `files:${serverId}`;
    const challenge = await calls.challenge(resource);
    const answer = await new Promise<SessionMfaResponse>((resolve, reject) =>
      ask(challenge, {
        answer: resolve,
        cancel: () => reject(new Error(filesMfaCancelledMessage)),
      }),
    );
    await calls.verify(resource, answer);
  };
}

/** A passed check is used again only while its grant has this long left to run at least. */
const grantMarginMs = 15_000;

/**
 * One check for the transfers chosen together, asked by the first that needs it; the others wait
 * on the same answer (and fail with it, when it is cancelled). A passed check lets transfers
 * start for `sessionMfaGrantMs` only, so a transfer that waited longer (for a moderator's
 * approval, say) asks again.
 */
export function sharedCheck(
  check: () => Promise<void>,
  now: () => number = Date.now,
): () => Promise<void> {
  let asked: Promise<void> | undefined;
  let passedAt: number | undefined;
  return () => {
    const lapsed = passedAt !== undefined && now() - passedAt > sessionMfaGrantMs - grantMarginMs;
    if (asked && !lapsed) return asked;
    passedAt = undefined;
    const current = check().then(() => {
      if (asked === current) passedAt = now();
    });
    asked = current;
    return current;
  };
}
