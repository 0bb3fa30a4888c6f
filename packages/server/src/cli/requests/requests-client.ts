import { readFile, writeFile } from 'node:fs/promises';
import {
  accessRequestJsonSchema,
  accessRequestListSchema,
  apiPaths,
  sshCertsResponseSchema,
  type AccessRequestJson,
  type AccessRequestScope,
  type CreateAccessRequest,
  type ReviewVerdict,
} from '@postern/contracts';
import { parseCertificate } from '../../ssh/certificates.js';
import { ED25519, formatPublicKey } from '../../ssh/keys.js';
import { PosternHome } from '../login/postern-home.js';
import { signedClient } from '../login/signed-client.js';

/** The access request calls of `postern request …`, signed with the current login's certificate. */
export async function requestsClient(env: NodeJS.ProcessEnv) {
  const { profile, get, post } = await signedClient(env);
  return {
    list: async (scope: AccessRequestScope) => {
      const path = `${apiPaths.cliAccessRequests}?scope=${scope}`;
      return (await get(path, accessRequestListSchema)).items;
    },
    show: (id: string) => {
      const path = apiPaths.cliAccessRequest(id);
      return get(path, accessRequestJsonSchema);
    },
    create: (body: CreateAccessRequest): Promise<AccessRequestJson> => {
      const path = apiPaths.cliAccessRequests;
      return post(path, body, accessRequestJsonSchema);
    },
    review: (id: string, state: ReviewVerdict, reason: string) => {
      const path = apiPaths.cliAccessRequestReviews(id);
      const body = { state, reason };
      return post(path, body, accessRequestJsonSchema);
    },
    /**
     * A certificate for the login's own key that assumes these requests (none: drops them all),
     * written over the current one. Returns when it expires.
     */
    assume: async (requestIds: string[]): Promise<string> => {
      const current = parseCertificate((await readFile(profile.cert_path, 'utf8')).trim());
      const pubKey = formatPublicKey(ED25519, current.publicKeyBlob);
      const path = apiPaths.sshCertsAssume;
      const body = { pub_key: pubKey, request_ids: requestIds };
      const issued = await post(path, body, sshCertsResponseSchema);
      await writeFile(profile.cert_path, `${issued.cert.trim()}\n`, { mode: 0o600 });
      const expires = parseCertificate(issued.cert).validBefore.toISOString();
      await new PosternHome(env).writeProfile({ ...profile, expires });
      return expires;
    },
  };
}
