import type { UserAcl } from '@postern/contracts';
import { jsonResponse } from '../../test/authConfig';
import { presetAcls } from '../../test/userContexts';
import { nodePage } from '../nodes/fixtures';
import { renderSignedIn } from './terminalPage.testkit';

/**
 * The console page at `path` for a signed-in user with `acl`, its Servers tab answered with the
 * node fixtures. The test file mocks terminalEngine (withFakeXterm) and fakes the sockets.
 */
export function renderConsole(
  path: string,
  acl: UserAcl = presetAcls.access,
  scrollbackLines = 1000,
) {
  const answer = (url: string) =>
    url.startsWith('/v1/webapi/sites/root/nodes?') ? jsonResponse(nodePage()) : undefined;
  return renderSignedIn(path, acl, { answer, ui: { scrollbackLines } });
}
