import type { HostRoutes } from './http/host-routes.js';
import type { ResourceListers } from './http/resource-listers.js';
import type { TlsRoutes } from './http/tls-routes.js';
import type { FastifyInstance } from 'fastify';
import type { AccessControlServices } from './access-control/index.js';
import type { GuardDeps } from './http/request-identity.js';
import type { IdentityServices } from './identity/index.js';
import type { Platform } from './platform.js';
import type { SsoServices } from './sso/index.js';

/**
 * The shape every part of the server takes (identity, access control, single sign-on, and each
 * access protocol's wing): it builds its services from what was built before it, serves its
 * routes, and starts and stops what it watches. app.ts builds the parts in order, then serves them.
 */
export interface Part<Needs, Services> {
  readonly name: string;
  build(needs: Needs): Services | Promise<Services>;
  routes(server: FastifyInstance, services: Services, ctx: ServerContext): Promise<void>;
  /** Loads watched state before the server answers. */
  start?(services: Services): Promise<void>;
  close?(services: Services): Promise<void>;
}

/** The core parts, built before any wing, in this order. */
export interface Core {
  identity: IdentityServices;
  accessControl: AccessControlServices;
  sso: SsoServices;
}

/** What routes and wings are built with: the platform, the core and the access guard's needs. */
export type ServerContext = Platform &
  Core & {
    guard: GuardDeps;
    /** The resources every wing serves, by kind (the cluster's counts read them). */
    kinds: () => readonly ServedKind[];
    /** Every wing's resource list, for `resources/check` (http/resource-listers.ts). */
    resourceListers: ResourceListers;
    /** Handlers for host names that are not the console's (applications' own hosts). */
    hostRoutes: HostRoutes;
    /** Handlers for TLS server names on the web port that are not the console's (Kubernetes). */
    tlsRoutes: TlsRoutes;
    /** The server's log, for what a wing's services report while they run. */
    log: (level: 'info' | 'warn', message: string, fields?: object) => void;
  };

/** A kind of resource a wing serves (`node`; `app`, `db`, `kube_cluster`, `desktop` later). */
export interface ServedKind {
  /** The kind as the API and RBAC name it. */
  kind: string;
  /** How many the inventory holds now, from memory (the clusters list shows it). */
  count(): number;
  /**
   * One resource by its name or id, with its labels, for access requests that name it; a kind
   * without it cannot be requested by resource yet.
   */
  find?(name: string): { id: string; labels: Record<string, string> } | undefined;
}
