import {
  apiPaths,
  mfaChallengeSchema,
  mfaRequiredResponseSchema,
  sessionMfaVerifyResponseSchema,
  type MfaChallenge,
  type SessionMfaResponse,
} from '@postern/contracts';
import { api, decode } from './index';

/**
 * A per-session MFA challenge (require_session_mfa) for a session the console opens itself:
 * `app:<fqdn>`, `desktop:<name>` or `files:<serverId>`, bound to this sign-in. The call that
 * opens an app or desktop takes the answer (`mfa_response`); file transfers hand it to
 * `verifySessionMfa` first.
 */
export async function requestSessionMfaChallenge(resource: string): Promise<MfaChallenge> {
  const url = apiPaths.sessionMfaChallenge;
  return decode(mfaChallengeSchema, await api.post(url, { resource }), url);
}

/** The answer for `files:<serverId>`: the server's transfers may start for a minute. */
export async function verifySessionMfa(
  resource: string,
  mfaResponse: SessionMfaResponse,
): Promise<void> {
  const url = apiPaths.sessionMfaVerify;
  const body = { resource, mfa_response: mfaResponse };
  decode(sessionMfaVerifyResponseSchema, await api.post(url, body), url);
}

/** Whether a session on a server as a login needs a check first (`mfa/required`). */
export async function isNodeMfaRequired(
  clusterId: string,
  serverId: string,
  login: string,
): Promise<boolean> {
  const url = apiPaths.mfaRequired(clusterId);
  const body = { node: { node_name: serverId, login } };
  return decode(mfaRequiredResponseSchema, await api.post(url, body), url).required;
}
