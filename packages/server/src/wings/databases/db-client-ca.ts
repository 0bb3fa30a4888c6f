import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
// @peculiar/x509 resolves its ASN.1 classes through tsyringe, which needs this polyfill first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { AlreadyExistsError, type Backend } from '../../backend/index.js';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
type X509Crypto = ReturnType<typeof x509.cryptoProvider.get>;

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
}

const routeUriScheme = 'postern-db:';

interface StoredCa {
  certPem: string;
  /** PKCS#8 PEM. */
  keyPem: string;
}

export interface ClientCertificate {
  certPem: string;
  keyPem: string;
  /** When the proxy should stop using it and ask for a new one. */
  renewAfterMs: number;
}

export interface ServerCertificate {
  certPem: string;
  /** PKCS#8 PEM. */
  keyPem: string;
  notAfter: Date;
}

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
    readonly certPem: string,
    private readonly signingKey: webcrypto.CryptoKey,
    private readonly caCert: x509.X509Certificate,
    private readonly now: () => number,
  ) {}

  /** The stored CA, or a new one stored first; two proxies racing end up with the same one. */
  static async load(
    backend: Backend,
    clusterName: string,
    now: () => number = Date.now,
    purpose: DatabaseCaPurpose = 'client',
  ): Promise<DatabaseClientCa> {
    x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);
    const caKey = caKeyOf(purpose);
    let stored = await readStored(backend, caKey);
    if (!stored) {
      const candidate = await createCa(clusterName, now(), purpose);
      try {
        await backend.create({ key: caKey, value: JSON.stringify(candidate) });
        stored = candidate;
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
        stored = await readStored(backend, caKey);
        if (!stored) throw new Error(`${caKey} vanished right after another process created it`);
      }
    }
    const key = await webcrypto.subtle.importKey(
      'pkcs8',
      pemBody(stored.keyPem),
      algorithm,
      false,
      ['sign'],
    );
    return new DatabaseClientCa(stored.certPem, key, new x509.X509Certificate(stored.certPem), now);
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
    const organization = this.caCert.subjectName.getField('O')[0] ?? 'Postern';
    return this.#signLeaf({
      subject: new x509.Name([{ O: [organization] }, { OU: ['Postern database server'] }]),
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
    const path = [route.db, route.dbUser, route.dbName].map(encodeURIComponent).join('/');
    return this.#signLeaf({
      subject: commonName(route.user),
      ttlMs,
      usage: x509.ExtendedKeyUsage.clientAuth,
      altNames: new x509.SubjectAlternativeNameExtension([
        { type: 'url', value: `${routeUriScheme}${path}` },
      ]),
    });
  }

  /** A fresh key and a certificate for it, valid from a minute ago for `ttlMs`. */
  async #signLeaf(leaf: {
    subject: x509.Name;
    ttlMs: number;
    usage: string;
    altNames?: x509.SubjectAlternativeNameExtension;
  }): Promise<ServerCertificate> {
    const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const now = this.now();
    const notAfter = new Date(now + leaf.ttlMs);
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: leaf.subject,
      issuer: this.caCert.subject,
      notBefore: new Date(now - 60_000),
      notAfter,
      publicKey: keys.publicKey,
      signingKey: this.signingKey,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([leaf.usage]),
        ...(leaf.altNames ? [leaf.altNames] : []),
      ],
    });
    const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
    return {
      certPem: certificate.toString('pem'),
      keyPem: toPem('PRIVATE KEY', pkcs8),
      notAfter,
    };
  }

  #issue(dbUser: string): Promise<ClientCertificate> {
    const issued = this.#sign(dbUser);
    this.#issued.set(dbUser, issued);
    issued.catch(() => this.#issued.delete(dbUser));
    return issued;
  }

  async #sign(dbUser: string): Promise<ClientCertificate> {
    const issuedAt = this.now();
    const leaf = await this.#signLeaf({
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
  const uri = (peer.subjectaltname ?? '')
    .split(', ')
    .find((name) => name.startsWith(`URI:${routeUriScheme}`));
  if (!user || !uri) return undefined;
  const parts = uri.slice(`URI:${routeUriScheme}`.length).split('/').map(decodeURIComponent);
  if (parts.length !== 3 || parts.some((part) => !part)) return undefined;
  const [db, dbUser, dbName] = parts as [string, string, string];
  return { user, db, dbUser, dbName };
}

async function readStored(backend: Backend, caKey: string): Promise<StoredCa | null> {
  const item = await backend.get(caKey);
  if (!item) return null;
  const stored = JSON.parse(item.value) as StoredCa;
  if (!stored.certPem?.includes('BEGIN CERTIFICATE') || !stored.keyPem?.includes('PRIVATE KEY')) {
    throw new Error(`${caKey} is malformed`);
  }
  return stored;
}

async function createCa(
  clusterName: string,
  nowMs: number,
  purpose: DatabaseCaPurpose,
): Promise<StoredCa> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(nowMs - 60_000);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: new x509.Name([
      { CN: [`Postern database ${purpose} CA ${clusterName}`] },
      { O: [clusterName] },
    ]).toString(),
    notBefore,
    notAfter: new Date(notBefore.getTime() + 10 * 365 * 24 * 3600 * 1000),
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: certificate.toString('pem'), keyPem: toPem('PRIVATE KEY', pkcs8) };
}

/**
 * A subject of just `CN=name`, whatever the name holds: @peculiar/x509 reads a backslash in a
 * JSON name's value as an escape (`a\b` would become `ab`, the certificate of another user),
 * so backslashes are doubled before it sees them; commas and pluses it escapes itself.
 */
function commonName(name: string): x509.Name {
  return new x509.Name([{ CN: [name.replace(/\\/g, '\\\\')] }]);
}

function randomSerial(): string {
  // A leading 01 keeps the serial positive whatever the random bytes are.
  return webcrypto
    .getRandomValues(new Uint8Array(16))
    .reduce((hex, byte) => hex + byte.toString(16).padStart(2, '0'), '01');
}

function toPem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${base64.trimEnd()}\n-----END ${label}-----\n`;
}

function pemBody(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}
