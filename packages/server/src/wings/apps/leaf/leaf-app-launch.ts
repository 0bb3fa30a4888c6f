import {
  apiPaths,
  appAuthPath,
  appListResponseSchema,
  type AppJson,
  type createAppSessionRequestSchema,
  type CreateAppSessionResponse,
} from '@postern/contracts';
import type { z } from 'zod';
import { ApiError, badParameter, notFound } from '../../../errors.js';
import type { Identity } from '../../../http/request-identity.js';
import {
  SessionMfa,
  sessionMfaNeeded,
  webSessionMfaSubject,
} from '../../../identity/mfa/session-mfa.js';
import { webCaller, type LeafCaller } from '../../../modules/trusted-clusters/leaf-grants.js';
import { leafGetJson, type LeafReach } from '../../../modules/trusted-clusters/leaf-reach.js';
import type { AppSessionsService } from '../app-sessions.service.js';

export interface LeafLaunchDeps {
  reach: LeafReach;
  sessions: Pick<AppSessionsService, 'launchLeaf'>;
  sessionMfa: Pick<SessionMfa, 'verify'>;
  /** This proxy's public host name: a leaf's app is served here at `<name>.<host>`. */
  proxyHost: () => string;
  /** `https://host[:port]` for an app host. */
  appOrigin: (host: string) => string;
}

type LaunchBody = Pick<
  z.infer<typeof createAppSessionRequestSchema>,
  'fqdn' | 'public_addr' | 'path' | 'mfa_response'
>;

/**
 * A launch of a trusted leaf's web app from this root's console (docs/trusted-clusters.md,
 * "A leaf's web apps in the browser"). The leaf says whether the user may reach it (its own
 * listing, read with the user's leaf session), the root's and the leaf's roles whether a
 * per-session MFA check comes first; then the app is served on this root at `<name>.<root
 * host>`, under the wildcard name the root already has, and its session is this root's, bound to
 * that host. The leaf still decides each connection (leaf/leaf-app-tunnel.ts).
 */
export async function launchLeafApp(
  leaf: string,
  identity: Identity,
  body: LaunchBody,
  origin: string | undefined,
  deps: LeafLaunchDeps,
): Promise<CreateAppSessionResponse> {
  const caller = webCaller(identity);
  const app = await findLeafApp(leaf, caller, body, deps);
  if (!app) throw notFound(`no application at ${body.fqdn} on ${leaf}`);
  if (app.isTcp) {
    throw badParameter(
      `${app.name} is a TCP app: use postern proxy app ${app.name} --cluster ${leaf}`,
    );
  }
  const required =
    SessionMfa.required(identity.roleSet) ||
    (await deps.reach.sessionMfaRequired(leaf, caller, { app: {} }));
  let checkedWith: string | undefined;
  if (required) {
    if (!body.mfa_response)
      throw new ApiError('mfa_required', sessionMfaNeeded('this application'));
    const subject = webSessionMfaSubject(identity.session.id, `app:${body.fqdn}`);
    checkedWith = await deps.sessionMfa.verify(identity.user, subject, body.mfa_response, origin);
  }
  const host = `${app.name}.${deps.proxyHost()}`.toLowerCase();
  const state = await deps.sessions.launchLeaf(
    identity.session,
    app.name,
    {
      cluster: leaf,
      host,
      checked: required,
    },
    checkedWith,
  );
  const exchange = new URL(appAuthPath, deps.appOrigin(host));
  exchange.searchParams.set('state', state);
  exchange.searchParams.set('path', body.path);
  return { fqdn: host, redirectUrl: exchange.toString(), value: state };
}

/**
 * The leaf's app the launcher names, as the leaf lists it for the user: by its address there
 * (the console's link), or by name, from a host of this root's (`<name>.<root host>`, which the
 * app's own pages send a visitor without a session to).
 */
async function findLeafApp(
  leaf: string,
  caller: LeafCaller,
  body: LaunchBody,
  deps: LeafLaunchDeps,
): Promise<AppJson | undefined> {
  const fqdn = body.fqdn.toLowerCase();
  const suffix = `.${deps.proxyHost().toLowerCase()}`;
  const nameHere = fqdn.endsWith(suffix) ? fqdn.slice(0, -suffix.length) : undefined;
  const address = (body.public_addr || body.fqdn).toLowerCase();
  const passage = await deps.reach.passage(leaf, caller);
  // The listing searches names and custom addresses: a host's first label is in either.
  const term = nameHere ?? address.split('.')[0]!;
  const query = new URLSearchParams({ search: term, limit: '100' });
  const listing = appListResponseSchema.safeParse(
    await leafGetJson(passage, `${apiPaths.apps(leaf)}?${query}`),
  );
  if (!listing.success) throw new ApiError('connection_problem', `${leaf} answered nonsense`);
  return listing.data.items.find((app) =>
    nameHere !== undefined
      ? app.name === nameHere
      : app.publicAddr.toLowerCase() === address || app.fqdn.toLowerCase() === fqdn,
  );
}
