import { apiPaths, mfaRequiredResponseSchema, type MfaRequiredRequest } from '@postern/contracts';
import { ApiError } from '../../errors.js';
import { answerMessage, postJson } from '../../net/post-json.js';
import {
  leafSessionHeaders,
  type DialLeaf,
  type LeafCaller,
  type LeafGrants,
} from './leaf-grants.js';

/**
 * Whether a leaf's roles, as its role map gives them to this root user, ask for a per-session MFA
 * check before a session on `resource` (a server and login, a database, an app:
 * require_session_mfa). The root asks the leaf's
 * own `mfa/required` with the leaf session the leaf grants the user, so the leaf decides, as it
 * does for its own users; the root then runs the check against the user's devices, which only
 * the root has (docs/trusted-clusters.md, "Per-session MFA on a leaf's servers").
 */
export async function leafSessionMfaRequired(
  leaf: string,
  caller: LeafCaller,
  resource: MfaRequiredRequest,
  deps: { grants: Pick<LeafGrants, 'for' | 'drop'>; dial: DialLeaf },
): Promise<boolean> {
  const url = new URL(apiPaths.mfaRequired(leaf), 'http://leaf');
  // A leaf that restarted or ended the session answers 401 once: asked again with a new grant.
  for (let attempt = 1; ; attempt += 1) {
    const grant = await deps.grants.for(caller, leaf);
    const answer = await postJson(url, resource, {
      over: await deps.dial(leaf),
      headers: leafSessionHeaders(grant),
      insecure: false,
      timeoutMs: 15_000,
      maxBytes: 16 * 1024,
      insecureHint: '',
    }).catch((error: unknown) => {
      throw new ApiError('connection_problem', `cannot reach ${leaf}: ${String(error)}`);
    });
    if (answer.status === 401 && attempt === 1) {
      deps.grants.drop(caller, leaf);
      continue;
    }
    if (answer.status !== 200) {
      const code = answer.status === 403 ? 'access_denied' : 'connection_problem';
      throw new ApiError(code, `${leaf}: ${answerMessage(answer)}`);
    }
    const parsed = mfaRequiredResponseSchema.safeParse(answer.json);
    if (!parsed.success) throw new ApiError('connection_problem', `${leaf} answered nonsense`);
    return parsed.data.required;
  }
}
