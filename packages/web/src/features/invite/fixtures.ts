import type { UserTokenDetails } from '@postern/contracts';

/** `GET users/password/token/tok1` as the server sends it. */
export const userTokenFixture: UserTokenDetails = {
  tokenId: 'tok1',
  user: 'alice',
  expiry: '2030-01-01T10:00:00Z',
  type: 'invite',
  qrCode: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
  totpSecret: 'JBSWY3DPEHPK3PXP',
};
