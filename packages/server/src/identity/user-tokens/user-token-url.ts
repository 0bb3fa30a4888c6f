import type { UserToken } from '@postern/contracts';

/** The link a person opens: `/web/invite/<id>` or `/web/reset/<id>` on the public address. */
export function userTokenUrl(baseUrl: string, token: UserToken): string {
  return `${baseUrl}/web/${token.type === 'invite' ? 'invite' : 'reset'}/${token.tokenId}`;
}
