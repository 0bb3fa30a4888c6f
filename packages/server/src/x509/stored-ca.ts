import { webcrypto } from 'node:crypto';
// @peculiar/x509 resolves its ASN.1 classes through tsyringe, which needs this polyfill first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { AlreadyExistsError, type Backend } from '../backend/index.js';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
type X509Crypto = ReturnType<typeof x509.cryptoProvider.get>;

interface StoredPair {
  certPem: string;
  /** PKCS#8 PEM. */
  keyPem: string;
}

/** A leaf this CA signed, with its fresh key. */
export interface IssuedCertificate {
  certPem: string;
  /** PKCS#8 PEM. */
  keyPem: string;
  notAfter: Date;
}

export interface LeafRequest {
  subject: x509.Name;
  ttlMs: number;
  /** The extended key usage: `x509.ExtendedKeyUsage.clientAuth` or `serverAuth`. */
  usage: string;
  altNames?: x509.SubjectAlternativeNameExtension;
}

/**
 * An X.509 CA kept in the backend under one key (its certificate and PKCS#8 key as JSON), shared
 * by every proxy on the storage: the first to need it makes it with a conditional create, and a
 * proxy that lost that race reads the winner's. The wings' CAs (databases, Kubernetes) are thin
 * uses of it: each says what its leaves name.
 */
export class StoredCa {
  private constructor(
    readonly certPem: string,
    private readonly signingKey: webcrypto.CryptoKey,
    readonly cert: x509.X509Certificate,
    private readonly now: () => number,
  ) {}

  /** The CA under `key`, made first (`commonName`, organization `organization`) when absent. */
  static async load(
    backend: Backend,
    key: string,
    name: { commonName: string; organization: string },
    now: () => number = Date.now,
  ): Promise<StoredCa> {
    x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);
    let stored = await readStored(backend, key);
    if (!stored) {
      const candidate = await createCa(name, now());
      try {
        await backend.create({ key, value: JSON.stringify(candidate) });
        stored = candidate;
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
        stored = await readStored(backend, key);
        if (!stored) throw new Error(`${key} vanished right after another process created it`);
      }
    }
    const signingKey = await webcrypto.subtle.importKey(
      'pkcs8',
      pemBody(stored.keyPem),
      algorithm,
      false,
      ['sign'],
    );
    return new StoredCa(stored.certPem, signingKey, new x509.X509Certificate(stored.certPem), now);
  }

  /** The organization in the CA's subject (the cluster's name). */
  get organization(): string {
    return this.cert.subjectName.getField('O')[0] ?? 'Postern';
  }

  /** A fresh key and a certificate for it, valid from a minute ago for `ttlMs`. */
  async signLeaf(leaf: LeafRequest): Promise<IssuedCertificate> {
    const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const now = this.now();
    const notAfter = new Date(now + leaf.ttlMs);
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: leaf.subject,
      issuer: this.cert.subject,
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
}

/**
 * A subject of just `CN=name`, whatever the name holds: @peculiar/x509 reads a backslash in a
 * JSON name's value as an escape (`a\b` would become `ab`, the certificate of another user),
 * so backslashes are doubled before it sees them; commas and pluses it escapes itself.
 */
export function commonName(name: string): x509.Name {
  return new x509.Name([{ CN: [name.replace(/\\/g, '\\\\')] }]);
}

async function readStored(backend: Backend, key: string): Promise<StoredPair | null> {
  const item = await backend.get(key);
  if (!item) return null;
  const stored = JSON.parse(item.value) as StoredPair;
  if (!stored.certPem?.includes('BEGIN CERTIFICATE') || !stored.keyPem?.includes('PRIVATE KEY')) {
    throw new Error(`${key} is malformed`);
  }
  return stored;
}

async function createCa(
  name: { commonName: string; organization: string },
  nowMs: number,
): Promise<StoredPair> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(nowMs - 60_000);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: new x509.Name([{ CN: [name.commonName] }, { O: [name.organization] }]).toString(),
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

export { x509 };
