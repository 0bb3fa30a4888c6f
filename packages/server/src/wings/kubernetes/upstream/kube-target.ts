import type { KubeClusterSpec } from '@postern/contracts';
import { ConfigError } from '../../../config/config-error.js';
import { readKubeconfig } from './kubeconfig.js';

/**
 * Where and how to reach one API server: its URL (a path on it prefixes every request), how its
 * certificate is checked, and the credential Postern presents (a bearer token, or a client
 * certificate), which must be allowed to impersonate the users and groups roles name.
 */
export interface KubeTarget {
  server: URL;
  /** PEM; absent: the system's CAs. */
  ca?: string;
  /** The name the server's certificate must carry, when not the URL's host. */
  servername?: string;
  insecureSkipVerify: boolean;
  token?: string;
  clientCert?: string;
  clientKey?: string;
}

/** The target a cluster's spec names: its own fields, or a kubeconfig file on this host. */
export function targetOfSpec(name: string, spec: KubeClusterSpec): KubeTarget {
  if (spec.kubeconfig) {
    if (spec.server) {
      throw new ConfigError(`Kubernetes cluster ${name}: name server or kubeconfig, not both`);
    }
    return readKubeconfig(spec.kubeconfig, spec.context, `Kubernetes cluster ${name}`);
  }
  if (!spec.server) {
    throw new ConfigError(
      `Kubernetes cluster ${name}: name its API server (server) or a kubeconfig`,
    );
  }
  const { token, client_cert: clientCert, client_key: clientKey } = spec.credentials ?? {};
  if (!token && !(clientCert && clientKey)) {
    throw new ConfigError(
      `Kubernetes cluster ${name}: credentials need a token, or client_cert and client_key`,
    );
  }
  return {
    server: new URL(spec.server),
    ca: spec.ca_cert,
    servername: spec.tls_server_name,
    insecureSkipVerify: spec.insecure_skip_verify,
    token,
    clientCert,
    clientKey,
  };
}
