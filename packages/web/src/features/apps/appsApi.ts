import {
  apiPaths,
  appListResponseSchema,
  appsPageSize,
  createAppSessionResponseSchema,
  type CreateAppSessionRequest,
  type CreateAppSessionResponse,
  type MfaChallenge,
} from '@postern/contracts';
import { requestSessionMfaChallenge } from '../../api/sessionMfa';
import { api, decode } from '../../api';
import {
  listQueryString,
  type ListOptions,
  type ListPageRequest,
} from '../../components/resourceList/listFilters';
import { makeApp, type AppFilters, type AppPage } from './makeApp';

/** The console asks for 15 apps a page, as for servers (reference §1.5). */
export { appsPageSize };

export type AppListRequest = ListPageRequest<AppFilters>;

/** The query string of `GET sites/{clusterId}/apps` (empty values left out). */
export function appListQuery(request: AppListRequest, options: ListOptions = {}): string {
  return listQueryString(request, appsPageSize, options);
}

/** One page of applications, searched, filtered and sorted by the server. */
export async function fetchApps(
  clusterId: string,
  request: AppListRequest,
  signal?: AbortSignal,
  options: ListOptions = {},
): Promise<AppPage> {
  const url = `${apiPaths.apps(clusterId)}?${appListQuery(request, options)}`;
  const page = decode(appListResponseSchema, await api.get(url, { signal }), url);
  return { apps: page.items.map(makeApp), startKey: page.startKey, totalCount: page.totalCount };
}

/** The session request, with where in the app to land when there is such a place (docs/apps.md). */
export type LaunchRequest = CreateAppSessionRequest & { path?: string };

/** `POST sessions/app`: a session on one app, and where the browser goes to pick it up. */
/** A per-session MFA challenge for launching the app at `fqdn` (require_session_mfa). */
export const sessionMfaChallenge = (fqdn: string): Promise<MfaChallenge> =>
  requestSessionMfaChallenge(`app:${fqdn}`);

export async function createAppSession(request: LaunchRequest): Promise<CreateAppSessionResponse> {
  const url = apiPaths.appSession;
  return decode(createAppSessionResponseSchema, await api.post(url, request), url);
}
