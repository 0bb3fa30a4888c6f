import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
// @peculiar/x509 resolves its ASN.1 classes through tsyringe, which needs this polyfill first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { AlreadyExistsError, type Backend } from '../../backend/index.js';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
type X509Crypto = ReturnType<typeof x509.cryptoProvider.get>;

/** Where the cluster's database client CA lives: one, shared by every proxy on the storage. */
const caKey = '/db_ca/client';

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
  ): Promise<DatabaseClientCa> {
    x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);
    let stored = await readStored(backend);
    if (!stored) {
      const candidate = await createCa(clusterName, now());
      try {
        await backend.create({ key: caKey, value: JSON.stringify(candidate) });
        stored = candidate;
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
        stored = await readStored(backend);
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
  async serverCertificate(hostname: string, ttlMs: number): Promise<ServerCertificate> {
    const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const now = this.now();
    const notBefore = new Date(now - 60_000);
    const notAfter = new Date(now + ttlMs);
    const organization = this.caCert.subjectName.getField('O')[0] ?? 'Postern';
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: new x509.Name([
        { O: [organization] },
        { OU: ['Postern database server'] },
      ]).toString(),
      issuer: this.caCert.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: this.signingKey,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        // Critical: the subject names no host, so this is the certificate's only host identity.
        new x509.SubjectAlternativeNameExtension(
          [{ type: isIP(hostname) ? 'ip' : 'dns', value: hostname }],
          true,
        ),
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
    const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const notBefore = new Date(this.now() - 60_000);
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: new x509.Name([{ CN: [dbUser] }]).toString(),
      issuer: this.caCert.subject,
      notBefore,
      notAfter: new Date(notBefore.getTime() + clientCertTtlMs),
      publicKey: keys.publicKey,
      signingKey: this.signingKey,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      ],
    });
    const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
    return {
      certPem: certificate.toString('pem'),
      keyPem: toPem('PRIVATE KEY', pkcs8),
      renewAfterMs: notBefore.getTime() + clientCertTtlMs / 2,
    };
  }
}

async function readStored(backend: Backend): Promise<StoredCa | null> {
  const item = await backend.get(caKey);
  if (!item) return null;
  const stored = JSON.parse(item.value) as StoredCa;
  if (!stored.certPem?.includes('BEGIN CERTIFICATE') || !stored.keyPem?.includes('PRIVATE KEY')) {
    throw new Error(`${caKey} is malformed`);
  }
  return stored;
}

async function createCa(clusterName: string, nowMs: number): Promise<StoredCa> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(nowMs - 60_000);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: new x509.Name([
      { CN: [`Postern database client CA ${clusterName}`] },
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
