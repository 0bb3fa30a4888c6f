import {
  apiPaths,
  joinTokenJsonSchema,
  joinTokenListSchema,
  type CreateJoinTokenRequest,
  type JoinTokenJson,
  type JoinTokenListItem,
} from '@postern/contracts';
import { api, decode } from '../../api';

/** Join Tokens calls: the live tokens (never their secrets), a new one, one fewer. */

/** `GET /v1/webapi/tokens`: the live join tokens, soonest to expire first. */
export async function fetchJoinTokens(signal?: AbortSignal): Promise<JoinTokenListItem[]> {
  const url = apiPaths.joinTokens;
  return decode(joinTokenListSchema, await api.get(url, { signal }), url).items;
}

/** `POST /v1/webapi/token`: the answer's `id` is the secret, which is never shown again. */
export async function createJoinToken(request: CreateJoinTokenRequest): Promise<JoinTokenJson> {
  const url = apiPaths.joinToken;
  return decode(joinTokenJsonSchema, await api.post(url, request), url);
}

/** `DELETE /v1/webapi/tokens/{id}`, by the listed id (the start of the secret's hash). */
export async function deleteJoinToken(id: string): Promise<void> {
  await api.delete(apiPaths.joinTokenById(id));
}
