import { apiPaths, mfaChallengeSchema, type MfaChallenge } from '@postern/contracts';
import { api, decode } from './index';

/**
 * A per-session MFA challenge (require_session_mfa) for a session the console opens itself:
 * `app:<fqdn>` or `desktop:<name>`, bound to this sign-in. The call that opens it takes the
 * answer (`mfa_response`).
 */
export async function requestSessionMfaChallenge(resource: string): Promise<MfaChallenge> {
  const url = apiPaths.sessionMfaChallenge;
  return decode(mfaChallengeSchema, await api.post(url, { resource }), url);
}
