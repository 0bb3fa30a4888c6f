import { isIP } from 'node:net';
import type { PeerCertificate } from 'node:tls';
import type { Backend } from '../../backend/index.js';
import { accessRequestAltName, accessRequestsOfAltNames } from '../../x509/access-request-names.js';
import { botInstanceAltName, botInstanceOfAltNames } from '../../x509/bot-instance-name.js';
import { mfaDeviceAltName, mfaDeviceOfAltNames } from '../../x509/mfa-device-name.js';
import { commonName, StoredCa, x509, type IssuedCertificate } from '../../x509/stored-ca.js';

/** The name (SNI) kubectl reaches the Kubernetes listener by: it never needs to resolve. */
export const kubeServerName = 'kube.postern.internal';

const clusterUriScheme = 'postern-kube:';
/**
 * On a one-minute certificate issued after an MFA check (require_session_mfa): names the cluster
 * it was checked for, as the cluster URI does.
 */
const sessionMfaUriScheme = 'postern-session-mfa:';

/** Who a verified client certificate names, and the one cluster it is for. */
export interface CertifiedKubeUser {
  user: string;
  cluster: string;
  /** When it was issued (its notBefore), for credentials changed since. */
  issuedAt: Date;
  /** The access requests it assumed: their roles count while they are approved. */
  accessRequests: string[];
  /** Issued after an MFA check for this cluster: it may open sessions require_session_mfa guards. */
  sessionMfaVerified: boolean;
  /** The MFA device the login behind it was proven with. */
  mfaDevice?: string;
  /** On a per-session MFA certificate: the device that answered the check. */
  sessionMfaDevice?: string;
  /** Issued to a bot: its instance. */
  botInstance?: string;
}

/** What a user certificate carries besides the user and cluster. */
export interface KubeCertificateMarks {
  accessRequests?: readonly string[];
  /** The user just passed an MFA check for this cluster (the certificate must be short-lived). */
  sessionMfaVerified?: boolean;
  /** The MFA device of the login it is issued on. */
  mfaDevice?: string | undefined;
  /** The device that answered the per-session check it is issued after. */
  sessionMfaDevice?: string | undefined;
  /** The bot instance it is issued to (a `bot_instance` lock refuses it). */
  botInstance?: string | undefined;
}

/**
 * The Kubernetes CA (docs/kubernetes.md), one for every proxy on the storage: it signs people's
 * client certificates for kubectl (`postern kube login`: CN the Postern user, a URI naming one
 * cluster) and the Kubernetes listener's server certificate, which kubeconfigs trust instead of
 * the web certificate.
 */
export class KubeCa {
  private constructor(private readonly ca: StoredCa) {}

  static async load(backend: Backend, clusterName: string, now?: () => number): Promise<KubeCa> {
    const ca = await StoredCa.load(
      backend,
      '/kube_ca/user',
      { commonName: `Postern Kubernetes CA ${clusterName}`, organization: clusterName },
      now,
    );
    return new KubeCa(ca);
  }

  get certPem(): string {
    return this.ca.certPem;
  }

  /** A person's certificate for one cluster. */
  userCertificate(
    user: string,
    cluster: string,
    ttlMs: number,
    marks: KubeCertificateMarks = {},
  ): Promise<IssuedCertificate> {
    const { accessRequests = [], sessionMfaVerified = false, mfaDevice, sessionMfaDevice } = marks;
    const { botInstance } = marks;
    const url = (scheme: string, value: string) => ({
      type: 'url' as const,
      value: `${scheme}${encodeURIComponent(value)}`,
    });
    return this.ca.signLeaf({
      subject: commonName(user),
      ttlMs,
      usage: x509.ExtendedKeyUsage.clientAuth,
      altNames: new x509.SubjectAlternativeNameExtension([
        url(clusterUriScheme, cluster),
        ...accessRequests.map(accessRequestAltName),
        ...(sessionMfaVerified ? [url(sessionMfaUriScheme, cluster)] : []),
        ...(mfaDevice ? [mfaDeviceAltName(mfaDevice)] : []),
        ...(sessionMfaDevice ? [mfaDeviceAltName(sessionMfaDevice, 'session')] : []),
        ...(botInstance ? [botInstanceAltName(botInstance)] : []),
      ]),
    });
  }

  /** The listener's certificate: serverAuth only, its names in the subject alternative names. */
  serverCertificate(names: string[], ttlMs: number): Promise<IssuedCertificate> {
    return this.ca.signLeaf({
      subject: new x509.Name([{ O: [this.ca.organization] }, { OU: ['Postern Kubernetes proxy'] }]),
      ttlMs,
      usage: x509.ExtendedKeyUsage.serverAuth,
      altNames: new x509.SubjectAlternativeNameExtension(
        names.map((name) => ({
          type: isIP(name) ? ('ip' as const) : ('dns' as const),
          value: name,
        })),
        true,
      ),
    });
  }
}

/** The user and cluster of a peer certificate the TLS layer verified against this CA. */
export function certifiedKubeUser(
  peer: PeerCertificate | undefined,
): CertifiedKubeUser | undefined {
  if (!peer?.subject) return undefined;
  const cn = peer.subject.CN as string | string[] | undefined;
  const user = Array.isArray(cn) ? undefined : cn;
  const uri = (peer.subjectaltname ?? '')
    .split(', ')
    .filter((name) => name.startsWith(`URI:${clusterUriScheme}`));
  if (!user || uri.length !== 1) return undefined;
  let cluster: string;
  try {
    cluster = decodeURIComponent(uri[0]!.slice(`URI:${clusterUriScheme}`.length));
  } catch {
    return undefined;
  }
  const issuedAt = new Date(peer.valid_from);
  if (!cluster || Number.isNaN(issuedAt.getTime())) return undefined;
  const names = (peer.subjectaltname ?? '').split(', ');
  const accessRequests = accessRequestsOfAltNames(names);
  const sessionMfaVerified = names.includes(
    `URI:${sessionMfaUriScheme}${encodeURIComponent(cluster)}`,
  );
  const mfaDevice = mfaDeviceOfAltNames(names);
  const sessionMfaDevice = mfaDeviceOfAltNames(names, 'session');
  const botInstance = botInstanceOfAltNames(names);
  return {
    user,
    cluster,
    issuedAt,
    accessRequests,
    sessionMfaVerified,
    ...(mfaDevice ? { mfaDevice } : {}),
    ...(sessionMfaDevice ? { sessionMfaDevice } : {}),
    ...(botInstance ? { botInstance } : {}),
  };
}
