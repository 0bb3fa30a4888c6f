import {
  apiPaths,
  headlessRequestViewSchema,
  mfaChallengeSchema,
  type HeadlessRequestView,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { browserWebauthn, getAssertion, type WebauthnClient } from '../../lib/webauthn';

/** `GET headless/{requestId}`: who asks, from where, and whether it is still open. */
export async function fetchHeadlessRequest(
  requestId: string,
  signal?: AbortSignal,
): Promise<HeadlessRequestView> {
  const url = apiPaths.headless(requestId);
  return decode(headlessRequestViewSchema, await api.get(url, { signal }), url);
}

/**
 * Approves with a key: a challenge issued for this one request, the key's answer, then
 * `PUT headless/{requestId}` with `accept`.
 */
export async function approveHeadlessRequest(
  requestId: string,
  webauthn: WebauthnClient = browserWebauthn,
): Promise<void> {
  const url = apiPaths.headlessChallenge(requestId);
  const challenge = decode(mfaChallengeSchema, await api.post(url, {}), url);
  const assertion = await getAssertion(challenge.webauthn_challenge?.publicKey, webauthn);
  await api.put(apiPaths.headless(requestId), {
    action: 'accept',
    webauthnAssertionResponse: assertion,
  });
}

export async function rejectHeadlessRequest(requestId: string): Promise<void> {
  await api.put(apiPaths.headless(requestId), { action: 'denied' });
}
