import { randomBytes, sign, verify } from 'node:crypto';
import {
  ED25519,
  ed25519PrivateKeyObject,
  ed25519PublicKeyObject,
  ed25519BlobFromRaw,
  formatPublicKey,
  parsePublicKey,
  publicKeyFromPrivatePem,
  rawEd25519FromBlob,
} from './keys.js';
import { SshReader, SshWriter } from './wire.js';

/**
 * OpenSSH certificates (PROTOCOL.certkeys in the OpenSSH sources), Ed25519 keys signed by an
 * Ed25519 CA. The layout is fixed: every field below appears in this order, the CA signs every
 * byte up to and including its own public key, and options are sorted by name.
 */

export const ED25519_CERT = 'ssh-ed25519-cert-v01@openssh.com';

const CERT_TYPE_CODE = { user: 1, host: 2 } as const;
export type CertificateType = keyof typeof CERT_TYPE_CODE;

/** OpenSSH's "forever" for valid-before. */
const FOREVER = (1n << 64n) - 1n;
/** The latest instant a JavaScript Date can hold; "forever" is shown as this. */
const LATEST_DATE_MS = 8.64e15;

export interface SignCertificateOptions {
  type: CertificateType;
  /** OpenSSH line of the Ed25519 key being certified. */
  publicKey: string;
  keyId: string;
  principals: string[];
  validAfter: Date;
  validBefore: Date;
  /** Name → value; '' for flags such as permit-pty. */
  extensions?: Record<string, string>;
  criticalOptions?: Record<string, string>;
  serial?: bigint;
}

export interface ParsedCertificate {
  type: CertificateType;
  keyId: string;
  principals: string[];
  validAfter: Date;
  validBefore: Date;
  extensions: Record<string, string>;
  criticalOptions: Record<string, string>;
  serial: bigint;
  /** The certified key as an `ssh-ed25519` blob. */
  publicKeyBlob: Buffer;
  /** The CA's public key blob. */
  signatureKeyBlob: Buffer;
  /** The whole certificate blob. */
  blob: Buffer;
  /** The bytes the CA signed, and its signature over them (raw Ed25519, 64 bytes). */
  signedBytes: Buffer;
  signature: Buffer;
}

/** Signs a certificate with the CA's Ed25519 private key; returns an OpenSSH public key line. */
export function signCertificate(caPrivateKeyPem: string, opts: SignCertificateOptions): string {
  const subject = parsePublicKey(opts.publicKey);
  if (subject.type !== ED25519) throw new Error(`only ${ED25519} keys can be certified`);
  if (opts.validBefore.getTime() <= opts.validAfter.getTime()) {
    throw new Error('certificate validity ends before it starts');
  }
  const caKey = ed25519PrivateKeyObject(caPrivateKeyPem);
  const caBlob = parsePublicKey(publicKeyFromPrivatePem(caPrivateKeyPem)).blob;

  const signed = new SshWriter()
    .string(ED25519_CERT)
    // The nonce makes every certificate's signed bytes unique, which defeats hash-collision attacks.
    .string(randomBytes(32))
    .string(rawEd25519FromBlob(subject.blob))
    .uint64(opts.serial ?? 0n)
    .uint32(CERT_TYPE_CODE[opts.type])
    .string(opts.keyId)
    .string(packStrings(opts.principals))
    .uint64(toEpochSeconds(opts.validAfter))
    .uint64(toEpochSeconds(opts.validBefore))
    .string(packOptions(opts.criticalOptions ?? {}))
    .string(packOptions(opts.extensions ?? {}))
    .string('') // reserved
    .string(caBlob)
    .toBuffer();
  const signature = new SshWriter()
    .string(ED25519)
    .string(sign(null, signed, caKey))
    .toBuffer();
  const blob = new SshWriter().raw(signed).string(signature).toBuffer();
  return formatPublicKey(ED25519_CERT, blob, opts.keyId.replace(/\s+/g, '_'));
}

/** Parses a certificate blob or line; throws a clear Error on anything malformed. */
export function parseCertificate(blobOrLine: Buffer | string): ParsedCertificate {
  const blob = typeof blobOrLine === 'string' ? parsePublicKey(blobOrLine).blob : blobOrLine;
  const reader = new SshReader(blob, 'certificate');
  const algorithm = reader.text();
  if (algorithm !== ED25519_CERT) throw new Error(`unsupported certificate type ${algorithm}`);
  reader.string(); // nonce
  const publicKeyBlob = ed25519BlobFromRaw(reader.string());
  const serial = reader.uint64();
  const typeCode = reader.uint32();
  const type = typeCode === 1 ? 'user' : typeCode === 2 ? 'host' : undefined;
  if (!type) throw new Error(`malformed certificate: unknown certificate type ${typeCode}`);
  const keyId = reader.text();
  const principals = unpackStrings(reader.string());
  const validAfter = fromEpochSeconds(reader.uint64());
  const validBefore = fromEpochSeconds(reader.uint64());
  const criticalOptions = unpackOptions(reader.string());
  const extensions = unpackOptions(reader.string());
  reader.string(); // reserved
  const signatureKeyBlob = reader.string();
  const signedBytes = blob.subarray(0, reader.position);
  const signatureReader = new SshReader(reader.string(), 'certificate signature');
  reader.end();
  const signatureAlgorithm = signatureReader.text();
  if (signatureAlgorithm !== ED25519) {
    throw new Error(`unsupported certificate signature ${signatureAlgorithm}`);
  }
  const signature = signatureReader.string();
  signatureReader.end();
  return {
    type,
    keyId,
    principals,
    validAfter,
    validBefore,
    extensions,
    criticalOptions,
    serial,
    publicKeyBlob,
    signatureKeyBlob,
    blob,
    signedBytes,
    signature,
  };
}

export type CertificateVerdict = { ok: true } | { ok: false; reason: string };

/** Checks signature (by one of the CAs), certificate type, principal and validity window. */
export function verifyCertificate(
  cert: ParsedCertificate,
  opts: { caPublicKeys: string[]; type: CertificateType; principal?: string; now: Date },
): CertificateVerdict {
  const signed = verifyCertificateSignature(cert, opts.caPublicKeys);
  if (!signed.ok) return signed;
  if (cert.type !== opts.type) {
    return { ok: false, reason: `expected a ${opts.type} certificate, got a ${cert.type} one` };
  }
  if (opts.principal !== undefined && !cert.principals.includes(opts.principal)) {
    return { ok: false, reason: `certificate does not list principal ${opts.principal}` };
  }
  const now = opts.now.getTime();
  if (now < cert.validAfter.getTime()) {
    return {
      ok: false,
      reason: `certificate is not valid before ${cert.validAfter.toISOString()}`,
    };
  }
  if (now >= cert.validBefore.getTime()) {
    return { ok: false, reason: `certificate expired at ${cert.validBefore.toISOString()}` };
  }
  return { ok: true };
}

/** Whether one of the CAs signed exactly these bytes: the certificate is genuine (maybe not valid). */
export function verifyCertificateSignature(
  cert: ParsedCertificate,
  caPublicKeys: string[],
): CertificateVerdict {
  const signer = caPublicKeys
    .map((line) => parsePublicKey(line).blob)
    .find((caBlob) => caBlob.equals(cert.signatureKeyBlob));
  if (!signer) return { ok: false, reason: 'certificate is not signed by a trusted CA' };
  if (!verify(null, cert.signedBytes, ed25519PublicKeyObject(signer), cert.signature)) {
    return { ok: false, reason: 'certificate signature is invalid' };
  }
  return { ok: true };
}

/** Several `string`s back to back inside one field (principals). */
function packStrings(values: string[]): Buffer {
  const writer = new SshWriter();
  for (const value of values) writer.string(value);
  return writer.toBuffer();
}

function unpackStrings(packed: Buffer): string[] {
  const reader = new SshReader(packed, 'certificate principals');
  const values: string[] = [];
  while (reader.remaining > 0) values.push(reader.text());
  return values;
}

/**
 * Options are name/data pairs sorted by name (OpenSSH rejects any other order). A flag has empty
 * data; a valued option's data is itself a `string` holding the value.
 */
function packOptions(options: Record<string, string>): Buffer {
  const writer = new SshWriter();
  const names = Object.keys(options).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    const value = options[name] ?? '';
    writer
      .string(name)
      .string(value === '' ? Buffer.alloc(0) : new SshWriter().string(value).toBuffer());
  }
  return writer.toBuffer();
}

function unpackOptions(packed: Buffer): Record<string, string> {
  const reader = new SshReader(packed, 'certificate options');
  const options: Record<string, string> = {};
  while (reader.remaining > 0) {
    const name = reader.text();
    const data = reader.string();
    if (Object.hasOwn(options, name))
      throw new Error(`malformed certificate: option ${name} twice`);
    // defineProperty, so a name such as "__proto__" stays a plain entry.
    Object.defineProperty(options, name, {
      value: data.length === 0 ? '' : new SshReader(data, `option ${name}`).text(),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return options;
}

function toEpochSeconds(date: Date): bigint {
  const ms = date.getTime();
  if (!Number.isFinite(ms) || ms < 0)
    throw new Error('certificate times must be valid dates after 1970');
  return ms >= LATEST_DATE_MS ? FOREVER : BigInt(Math.floor(ms / 1000));
}

function fromEpochSeconds(seconds: bigint): Date {
  const ms = seconds * 1000n;
  return new Date(ms >= BigInt(LATEST_DATE_MS) ? LATEST_DATE_MS : Number(ms));
}
