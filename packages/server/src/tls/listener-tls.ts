import type { IssuedCertificate } from '../x509/stored-ca.js';
import { keepCertificateRenewed, listenerCertTtlMs } from './certificate-renewal.js';
import { preferredCiphers } from './preferred-ciphers.js';

/** A CA that signs a listener's own certificate and the client certificates it asks for. */
export interface ListenerCa {
  serverCertificate(names: string[], ttlMs: number): Promise<IssuedCertificate>;
  /** Trusted for the clients' certificates. */
  certPem: string;
}

/** The server side of a listener's TLS: its certificate, the CA clients are checked against. */
export interface ListenerTlsOptions {
  cert: string;
  key: string;
  ca: string;
  ciphers: string;
  honorCipherOrder: true;
}

export interface RenewingListenerTls {
  /** The options of the certificate issued first. */
  options: ListenerTlsOptions;
  stop: () => void;
}

/**
 * A listener's own certificate of `ca` (the Kubernetes and PostgreSQL listeners) for
 * `serverNames`, as TLS options, renewed for as long as the process runs (keepCertificateRenewed):
 * `renewed` gets each new certificate's options, for new connections; open ones keep theirs.
 */
export async function renewingListenerTls(
  ca: ListenerCa,
  serverNames: string[],
  options: {
    renewed: (options: ListenerTlsOptions) => void;
    /** How long each certificate is valid (tests shorten it; default listenerCertTtlMs). */
    ttlMs?: number | undefined;
    /** Told when a renewal failed (it is tried again). */
    failed?: ((error: unknown) => void) | undefined;
  },
): Promise<RenewingListenerTls> {
  const ttlMs = options.ttlMs ?? listenerCertTtlMs;
  const issue = () => ca.serverCertificate(serverNames, ttlMs);
  const tlsOptions = (issued: IssuedCertificate): ListenerTlsOptions => ({
    cert: issued.certPem,
    key: issued.keyPem,
    ca: ca.certPem,
    ciphers: preferredCiphers,
    honorCipherOrder: true,
  });
  const first = tlsOptions(await issue());
  const stop = keepCertificateRenewed({
    ttlMs,
    issue,
    use: (issued) => options.renewed(tlsOptions(issued)),
    ...(options.failed ? { failed: options.failed } : {}),
  });
  return { options: first, stop };
}
