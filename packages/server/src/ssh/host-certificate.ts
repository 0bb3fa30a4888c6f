import ssh2 from 'ssh2';
import { ED25519_CERT, parseCertificate } from './certificates.js';
import { ED25519, ed25519PrivateKeyObject } from './keys.js';
import { toOpenSshPrivateKey } from './openssh-key-format.js';
import { protocolOf, type Ssh2Protocol } from './ssh2-internals.js';

/** The parsed private key object ssh2 keeps for each host key (untyped in @types/ssh2). */
interface Ssh2HostKey {
  type: string;
  getPublicSSH(): Buffer;
  sign(data: Buffer, algo?: string): Buffer | Error;
}

/**
 * Host keys for one ssh2 server connection that present an OpenSSH host certificate, so clients
 * trust the host through one `@cert-authority` known_hosts line instead of a key per host.
 *
 * ssh2 1.17 has no host certificates. A server offers one algorithm per host key and, in the key
 * exchange reply, sends the key's public blob and a signature labelled with the negotiated
 * algorithm. So the certificate is offered as a key of type `ssh-ed25519-cert-v01@openssh.com`
 * whose public blob is the certificate, signing with the Ed25519 key underneath. The one thing
 * ssh2 gets wrong for a certificate is the signature's label: PROTOCOL.certkeys says it is the
 * plain key's (`ssh-ed25519`), while ssh2 writes the negotiated name; signing is the last step
 * before the label is written, so it relabels the negotiated algorithm of this exchange then.
 * The plain key is offered second, for clients without certificate support (ssh2 among them).
 *
 * The objects hold the connection's protocol, so each server connection needs its own: call
 * `attach` from the server's 'connection' event, before the key exchange (ssh2 emits it on the
 * client's identification line, before KEXINIT).
 */
export class CertifiedHostKeys {
  readonly hostKeys: unknown[];
  private protocol: Ssh2Protocol | undefined;

  constructor(privateKeyPem: string, certificateLine: string) {
    const certificate = parseCertificate(certificateLine);
    if (certificate.type !== 'host') throw new Error('a host certificate is required');
    const parsed = ssh2.utils.parseKey(toOpenSshPrivateKey(ed25519PrivateKeyObject(privateKeyPem)));
    if (parsed instanceof Error) throw parsed;
    // OpenSSH's format may hold several keys; ssh2 returns a list then.
    const plain = (Array.isArray(parsed) ? parsed[0] : parsed) as unknown as Ssh2HostKey;
    // Inherits ssh2's private-key internals (it recognises parsed keys by a symbol on them).
    const certified = Object.create(plain) as Ssh2HostKey;
    const blob = certificate.blob;
    certified.type = ED25519_CERT;
    certified.getPublicSSH = () => blob;
    certified.sign = (data: Buffer, algo?: string) => {
      const negotiated = (this.protocol as { _kex?: { negotiated?: { serverHostKey?: string } } })
        ?._kex?.negotiated;
      if (!negotiated) return new Error('host certificate used outside a key exchange');
      negotiated.serverHostKey = ED25519;
      return plain.sign(data, algo);
    };
    // ssh2 takes a host key as a string, a Buffer or {key}; a parsed key passes through as key.
    this.hostKeys = [{ key: certified }, { key: plain }];
  }

  /** Binds the keys to the server connection whose key exchange they will sign. */
  attach(connection: object): void {
    this.protocol = protocolOf(connection);
  }
}
