import { AlreadyExistsError, type Backend } from '../backend/index.js';

export const certAuthoritiesPrefix = '/cert_authorities/';

export type CertAuthorityType = 'user' | 'host';

/** A certificate authority as stored under `/cert_authorities/<type>`. */
export interface CertAuthorityResource {
  kind: 'cert_authority';
  version: 'v2';
  metadata: { name: CertAuthorityType };
  spec: {
    type: CertAuthorityType;
    clusterName: string;
    /** OpenSSH public key line. */
    publicKey: string;
    /** PKCS#8 PEM. */
    privateKeyPem: string;
  };
}

/** The cluster's CAs in the backend: one per type, shared by every proxy on the same storage. */
export class CertAuthorityStore {
  constructor(private readonly backend: Backend) {}

  async get(type: CertAuthorityType): Promise<CertAuthorityResource | null> {
    const item = await this.backend.get(certAuthoritiesPrefix + type);
    return item ? parseCertAuthority(item.value) : null;
  }

  /**
   * Stores `candidate` unless a CA of its type already exists, and returns the one that is stored.
   * `create` is atomic in every backend, so when two proxies race on one PostgreSQL, one wins
   * and the other reads the winner's: the cluster never ends up with two CAs of one type.
   */
  async createOrGet(candidate: CertAuthorityResource): Promise<CertAuthorityResource> {
    const key = certAuthoritiesPrefix + candidate.spec.type;
    try {
      await this.backend.create({ key, value: JSON.stringify(candidate) });
      return candidate;
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      const winner = await this.get(candidate.spec.type);
      if (!winner) throw new Error(`${key} vanished right after another process created it`);
      return winner;
    }
  }
}

function parseCertAuthority(json: string): CertAuthorityResource {
  const resource = JSON.parse(json) as CertAuthorityResource;
  if (
    resource.kind !== 'cert_authority' ||
    !resource.spec?.publicKey ||
    !resource.spec.privateKeyPem
  ) {
    throw new Error('stored certificate authority is malformed');
  }
  return resource;
}
