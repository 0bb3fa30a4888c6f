import { apiPaths, databaseListResponseSchema } from '@postern/contracts';
import { accessDenied, ApiError, badParameter, notFound } from '../../errors.js';
import {
  certCaller,
  cliCallerKey,
  type LeafCaller,
} from '../../modules/trusted-clusters/leaf-grants.js';
import {
  leafGetJson,
  type LeafHopOf,
  type LeafReach,
} from '../../modules/trusted-clusters/leaf-reach.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import type { CertifiedRoute } from './db-client-ca.js';
import type { LeafAdmission } from './native-listener.js';

type Signer = Awaited<ReturnType<CertRequestAuth['identify']>>;

/**
 * The route of a `postern db login --cluster LEAF` certificate, once the leaf says the user may
 * take it: the root asks the leaf, with the user's leaf session, for its listing of the database,
 * so the leaf's role map and `db_labels`, `db_users` and `db_names` decide, as they will again
 * at each connection. The route names the database's protocol, for the root's listener of it.
 */
export async function leafLoginRoute(
  reach: LeafReach | undefined,
  signer: Signer,
  leaf: string,
  name: string,
  wanted: { dbUser: string; dbName: string },
): Promise<CertifiedRoute> {
  if (!reach?.isLeaf(leaf)) throw notFound(`no trusted cluster named ${leaf}`);
  const passage = await reach.passage(leaf, certCaller(signer));
  const query = new URLSearchParams({ search: name, limit: '100' });
  const listing = databaseListResponseSchema.safeParse(
    await leafGetJson(passage, `${apiPaths.databases(leaf)}?${query}`),
  );
  if (!listing.success) throw new ApiError('connection_problem', `${leaf} answered nonsense`);
  const db = listing.data.items.find((item) => item.name === name);
  if (!db) throw notFound(`no database named ${name} on ${leaf}`);
  const protocol = db.protocol;
  if (protocol !== 'postgres' && protocol !== 'mysql') {
    throw badParameter(`Postern does not speak ${protocol} yet`);
  }
  if (!wanted.dbName && protocol === 'postgres') {
    throw badParameter('db_name: name a database (PostgreSQL always opens one)');
  }
  const allows = (list: string[], value: string) => list.includes('*') || list.includes(value);
  if (!allows(db.database_users, wanted.dbUser)) {
    throw accessDenied(
      `${leaf} does not let ${signer.user} connect to ${name} as database user "${wanted.dbUser}"`,
    );
  }
  if (wanted.dbName && !allows(db.database_names, wanted.dbName)) {
    throw accessDenied(
      `${leaf} does not let ${signer.user} open database "${wanted.dbName}" on ${name}`,
    );
  }
  return { user: signer.user, db: name, ...wanted, cluster: leaf, protocol };
}

/**
 * A native listener's client of a leaf's database, as the leaf is asked to take them: the same
 * leaf session as their CLI's.
 */
export function nativeLeafCaller(admission: LeafAdmission): LeafCaller {
  return {
    key: cliCallerKey(admission.user),
    user: admission.user,
    roles: admission.roles,
    traits: admission.traits,
    expires: new Date(admission.expiresMs).toISOString(),
    // The listener refused a user whose roles here ask for a check: a client cannot give one.
    sessionMfa: false,
  };
}

/** The hop a native listener's client of a leaf's database makes, as the root audits it. */
export function nativeLeafHop(admission: LeafAdmission, remoteAddr: string): LeafHopOf {
  const { leaf, name, user, roles, expiresMs, mfaDevice, botInstance, accessRequests } = admission;
  const marks = { mfaDevice, botInstance, accessRequests };
  return { leaf, kind: 'database', name, user, roles, ...marks, expiresMs, remoteAddr };
}
