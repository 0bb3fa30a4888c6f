import { isIP } from 'node:net';
import type { Backend } from '../../backend/index.js';
import { accessRequestAltName, accessRequestsOfAltNames } from '../../x509/access-request-names.js';
import { botInstanceAltName, botInstanceOfAltNames } from '../../x509/bot-instance-name.js';
import { mfaDeviceAltName, mfaDeviceOfAltNames } from '../../x509/mfa-device-name.js';
import { commonName, StoredCa, x509, type IssuedCertificate } from '../../x509/stored-ca.js';

/**
 * The cluster's two database CAs, each one shared by every proxy on the storage: `client` signs
 * the proxy's own certificates for databases (CN = the database user; databases trust it), and
 * `access` signs people's certificates for the proxy's native database listeners (CN = the
 * Postern user, the route in a URI) and those listeners' server certificates. They must differ:
 * a person's certificate must never be one a database would take.
 */
export type DatabaseCaPurpose = 'client' | 'access';
const caKeyOf = (purpose: DatabaseCaPurpose) => `/db_ca/${purpose}`;

/** What a native listener's client certificate allows: one database, user and name. */
export interface CertifiedRoute {
  user: string;
  db: string;
  dbUser: string;
  dbName: string;
  /** A trusted leaf whose database this is: the root's listener takes it there. */
  cluster?: string;
  /**
   * A leaf's database's protocol, which the root cannot look up at connect time: only the
   * listener of that protocol takes the route (absent in routes of earlier releases: postgres).
   */
  protocol?: 'postgres' | 'mysql';
  /** The MFA device of the login it was issued on: an `mfa_device` lock refuses it. */
  mfaDevice?: string;
  /** The bot instance it was issued to: a `bot_instance` lock refuses it. */
  botInstance?: string;
  /**
   * The access requests the login had assumed: their roles count while approved, and an
   * `access_request` lock on one refuses it.
   */
  accessRequests?: string[];
}

const routeUriScheme = 'postern-db:';

export interface ClientCertificate {
  certPem: string;
  keyPem: string;
  /** When the proxy should stop using it and ask for a new one. */
  renewAfterMs: number;
}

export type ServerCertificate = IssuedCertificate;

/** How long a client certificate for a database user is valid; it is renewed at half-life. */
const clientCertTtlMs = 60 * 60 * 1000;

/**
 * The database client CA (docs/databases.md): the proxy signs in to databases with short-lived
 * client certificates whose CN is the database user, and the databases trust this CA's
 * certificate (`postern db ca export`) instead of any password.
 */
export class DatabaseClientCa {
  readonly #issued = new Map<string, Promise<ClientCertificate>>();

  private constructor(
    private readonly ca: StoredCa,
    private readonly now: () => number,
  ) {}

  /** The stored CA, or a new one stored first; two proxies racing end up with the same one. */
  static async load(
    backend: Backend,
    clusterName: string,
    now: () => number = Date.now,
    purpose: DatabaseCaPurpose = 'client',
  ): Promise<DatabaseClientCa> {
    const ca = await StoredCa.load(
      backend,
      caKeyOf(purpose),
      { commonName: `Postern database ${purpose} CA ${clusterName}`, organization: clusterName },
      now,
    );
    return new DatabaseClientCa(ca, now);
  }

  get certPem(): string {
    return this.ca.certPem;
  }

  /** A client certificate for the database user, reused until its half-life. */
  clientCertificate(dbUser: string): Promise<ClientCertificate> {
    const cached = this.#issued.get(dbUser);
    if (cached) {
      return cached.then((cert) => (cert.renewAfterMs > this.now() ? cert : this.#issue(dbUser)));
    }
    return this.#issue(dbUser);
  }

  /**
   * A server certificate for a database at `hostname` (a DNS name or an IP address, in the
   * subject alternative name), for TLS that the proxy trusts when the database's `ca_cert` is
   * this CA (`POST sign/db`). It is for serverAuth only, and its subject has no CN: no database
   * that maps a client certificate's CN to a user can take it for one of its users.
   */
  serverCertificate(hostnames: string | string[], ttlMs: number): Promise<ServerCertificate> {
    return this.ca.signLeaf({
      subject: new x509.Name([{ O: [this.ca.organization] }, { OU: ['Postern database server'] }]),
      ttlMs,
      usage: x509.ExtendedKeyUsage.serverAuth,
      // Critical: the subject names no host, so this is the certificate's only host identity.
      altNames: new x509.SubjectAlternativeNameExtension(
        [hostnames].flat().map((hostname) => ({
          type: isIP(hostname) ? ('ip' as const) : ('dns' as const),
          value: hostname,
        })),
        true,
      ),
    });
  }

  /**
   * A person's certificate for a native database listener (`postern db login`): CN is the
   * Postern user and a URI names the one database, database user and name it may open.
   */
  routeCertificate(route: CertifiedRoute, ttlMs: number): Promise<ServerCertificate> {
    const leaf = route.cluster ? [route.cluster, ...(route.protocol ? [route.protocol] : [])] : [];
    const parts = [route.db, route.dbUser, route.dbName, ...leaf];
    const path = parts.map(encodeURIComponent).join('/');
    return this.ca.signLeaf({
      subject: commonName(route.user),
      ttlMs,
      usage: x509.ExtendedKeyUsage.clientAuth,
      altNames: new x509.SubjectAlternativeNameExtension([
        { type: 'url', value: `${routeUriScheme}${path}` },
        ...(route.mfaDevice ? [mfaDeviceAltName(route.mfaDevice)] : []),
        ...(route.botInstance ? [botInstanceAltName(route.botInstance)] : []),
        ...(route.accessRequests ?? []).map(accessRequestAltName),
      ]),
    });
  }

  #issue(dbUser: string): Promise<ClientCertificate> {
    const issued = this.#sign(dbUser);
    this.#issued.set(dbUser, issued);
    issued.catch(() => this.#issued.delete(dbUser));
    return issued;
  }

  async #sign(dbUser: string): Promise<ClientCertificate> {
    const issuedAt = this.now();
    const leaf = await this.ca.signLeaf({
      subject: commonName(dbUser),
      ttlMs: clientCertTtlMs,
      usage: x509.ExtendedKeyUsage.clientAuth,
    });
    return {
      certPem: leaf.certPem,
      keyPem: leaf.keyPem,
      renewAfterMs: issuedAt + clientCertTtlMs / 2,
    };
  }
}

/**
 * The route a verified peer certificate of a native listener carries (Node's parsed form), or
 * undefined when it carries none.
 */
export function certifiedRoute(peer: {
  subject?: Partial<Record<string, string | string[]>>;
  subjectaltname?: string;
}): CertifiedRoute | undefined {
  const cn = peer.subject?.CN;
  const user = Array.isArray(cn) ? undefined : cn;
  const names = (peer.subjectaltname ?? '').split(', ');
  const uri = names.find((name) => name.startsWith(`URI:${routeUriScheme}`));
  const mfaDevice = mfaDeviceOfAltNames(names);
  const botInstance = botInstanceOfAltNames(names);
  const accessRequests = accessRequestsOfAltNames(names);
  if (!user || !uri) return undefined;
  const parts = uri.slice(`URI:${routeUriScheme}`.length).split('/').map(decodeURIComponent);
  // The database name may be empty: a MySQL route with no default database opens none.
  if (parts.length < 3 || parts.length > 5 || !parts[0] || !parts[1]) return undefined;
  const [db, dbUser, dbName, cluster, protocol] = parts as [
    string,
    string,
    string,
    string?,
    string?,
  ];
  if (cluster === '') return undefined;
  if (protocol !== undefined && protocol !== 'postgres' && protocol !== 'mysql') return undefined;
  return {
    user,
    db,
    dbUser,
    dbName,
    ...(cluster ? { cluster } : {}),
    ...(protocol ? { protocol } : {}),
    ...(mfaDevice ? { mfaDevice } : {}),
    ...(botInstance ? { botInstance } : {}),
    ...(accessRequests.length ? { accessRequests } : {}),
  };
}
