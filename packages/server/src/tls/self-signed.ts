import { webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
// @peculiar/x509 resolves its ASN.1 classes through tsyringe, which needs this polyfill first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the material came from, for the startup log. */
  source: 'configured' | 'generated' | 'data-dir';
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

// The crypto type @peculiar/x509 is declared against: the DOM's `Crypto` when a program includes
// the DOM lib (some test dependencies reference it), otherwise unresolved. Node's webcrypto
// implements it, but its declarations differ in detail from the DOM's, hence the one cast.
type X509Crypto = ReturnType<typeof x509.cryptoProvider.get>;

/**
 * The certificate the web listener serves: the configured one, or a self-signed one kept in the
 * data dir so browsers see the same certificate across restarts.
 */
export async function loadOrCreateTls(options: {
  dataDir: string;
  configured?: { certFile: string; keyFile: string };
  hostnames: string[];
}): Promise<TlsMaterial> {
  if (options.configured) {
    const [cert, key] = await Promise.all([
      readFile(options.configured.certFile, 'utf8'),
      readFile(options.configured.keyFile, 'utf8'),
    ]);
    return { cert, key, source: 'configured' };
  }
  const dir = path.join(options.dataDir, 'tls');
  const certFile = path.join(dir, 'self-signed.crt');
  const keyFile = path.join(dir, 'self-signed.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    // Kept unless it lacks a name now wanted (a new public address, the app hosts' wildcard),
    // or it ends within a month: a proxy started on an expired one would serve it for a year.
    if (namesAll(cert, options.hostnames) && validUntilAtLeast(cert, Date.now() + renewWithinMs)) {
      return { cert, key, source: 'data-dir' };
    }
  }
  const { cert, key } = await createSelfSigned(options.hostnames);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyFile, key, { mode: 0o600 });
  await writeFile(certFile, cert, { mode: 0o644 });
  return { cert, key, source: 'generated' };
}

export async function createSelfSigned(
  hostnames: string[],
): Promise<{ cert: string; key: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const names = [...new Set(['localhost', '127.0.0.1', '::1', ...hostnames])];
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + 365 * 24 * 3600 * 1000);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: webcrypto
      .getRandomValues(new Uint8Array(16))
      .reduce((hex, byte) => hex + byte.toString(16).padStart(2, '0'), '01'),
    name: `CN=${names.find((name) => !isIP(name) && name !== 'localhost') ?? 'localhost'}, O=Postern self-signed`,
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        names.map((name): x509.JsonGeneralName =>
          isIP(name) ? { type: 'ip', value: name } : { type: 'dns', value: name },
        ),
      ),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const key = x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
  return { cert: certificate.toString('pem'), key };
}

/** A kept self-signed certificate this close to its end is made anew at start. */
const renewWithinMs = 30 * 24 * 3600 * 1000;

/** Whether the certificate is still valid at `time` (ms since the epoch). */
function validUntilAtLeast(pem: string, time: number): boolean {
  try {
    return new x509.X509Certificate(pem).notAfter.getTime() > time;
  } catch {
    return false;
  }
}

/** Whether the certificate names every one of `hostnames` in its subject alternative names. */
function namesAll(pem: string, hostnames: string[]): boolean {
  try {
    const certificate = new x509.X509Certificate(pem);
    const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
    const named = new Set(san?.names.items.map((item) => item.value.toLowerCase()) ?? []);
    return hostnames.every((name) => named.has(name.toLowerCase()));
  } catch {
    return false;
  }
}
