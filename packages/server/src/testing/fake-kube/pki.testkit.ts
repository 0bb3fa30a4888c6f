import { webcrypto } from 'node:crypto';
// @peculiar/x509 resolves its ASN.1 classes through tsyringe, which needs this polyfill first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
type X509Crypto = ReturnType<typeof x509.cryptoProvider.get>;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface FakeKubePki {
  caPem: string;
  /** The API server's certificate: 127.0.0.1, ::1 and localhost. */
  server: KeyPairPem;
  /** Signs a client certificate the way a cluster CA does: CN the user, O its groups. */
  issueClient(commonName: string, organizations: string[]): Promise<KeyPairPem>;
}

/** A cluster CA of its own for the fake API server, made fresh (ECDSA P-256: fast to make). */
export async function createFakeKubePki(): Promise<FakeKubePki> {
  x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);
  const caKeys = await newKeys();
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600 * 1000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=fake-kube-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  });
  const issue = async (
    subject: string,
    usage: string,
    extra: x509.Extension[] = [],
  ): Promise<KeyPairPem> => {
    const keys = await newKeys();
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage]),
        ...extra,
      ],
    });
    const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
    return {
      certPem: certificate.toString('pem'),
      keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
    };
  };
  const server = await issue('CN=fake-kube-apiserver', x509.ExtendedKeyUsage.serverAuth, [
    new x509.SubjectAlternativeNameExtension([
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: '::1' },
      { type: 'dns', value: 'localhost' },
    ]),
  ]);
  return {
    caPem: ca.toString('pem'),
    server,
    issueClient: (commonName, organizations) =>
      issue(
        [`CN=${commonName}`, ...organizations.map((group) => `O=${group}`)].join(', '),
        x509.ExtendedKeyUsage.clientAuth,
      ),
  };
}

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
}

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  return bytes.reduce((hex, byte) => hex + byte.toString(16).padStart(2, '0'), '01');
}
