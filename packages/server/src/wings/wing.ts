import type { HostPort } from '../config/address.js';
import type { Part, ServedKind, ServerContext } from '../part.js';

/**
 * One access protocol (servers over SSH; applications, databases, Kubernetes and desktops next):
 * a folder under wings/ that exports one of these, registered by one line in wings/index.ts.
 * It builds its services from the platform and the core, serves its routes, runs its listeners
 * and names the kinds of resource it serves; its CLI commands are listed in wings/cli.ts. A wing never imports another
 * wing's files; what two wings share belongs in the platform (modules/).
 */
export interface Wing<Services extends object = object> extends Part<ServerContext, Services> {
  /** Listeners and background tasks `postern start` runs (tests build the app without them). */
  readonly listeners?: readonly WingListener<Services>[];
  kinds(services: Services): readonly ServedKind[];
}

export interface WingListener<Services> {
  /** The name its bound address is reported under (`ssh`), and its log lines' name. */
  readonly name: string;
  /** Whether the configuration turns it on; on when absent. */
  enabled?(ctx: ServerContext): boolean;
  start(services: Services, ctx: ListenerContext): Promise<RunningListener>;
}

export interface ListenerContext extends ServerContext {
  log: (level: 'info' | 'warn', message: string, fields?: object) => void;
}

export interface RunningListener {
  /** What it bound, when it listens; reported to `ctx.addresses` under the listener's name. */
  address?: HostPort;
  /** Set by listeners that serve this host itself as a resource (for the first-run hints). */
  servesThisHost?: boolean;
  stop(): Promise<void>;
}

/** The services a wing builds, as `buildApp` exposes them (tests read them). */
export type WingServices<W> = W extends Wing<infer S> ? S : never;
