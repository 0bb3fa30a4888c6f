import {
  appResourceSchema,
  databaseResourceSchema,
  desktopResourceSchema,
  kubeClusterResourceSchema,
} from '@postern/contracts';
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import type { FileConfig } from './file-schema.js';
import { readSecretFile } from './secret-file.js';

/** A PEM file the config names (a database's CA): read at start, so a wrong path fails early. */
function readPem(file: string, field: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${field}: cannot read ${file}: ${(error as Error).message}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(`${field}: ${file} holds no PEM certificate`);
  }
  return text;
}

/**
 * The resources the config file names (`apps`, `databases`, `desktops`,
 * `kubernetes_clusters`), each checked by its kind's schema, with the files they point at (a
 * CA, a VNC password) read now, so a wrong path stops the start rather than the first connection.
 */
export function resolveStaticResources(file: FileConfig) {
  return {
    apps: (file.apps ?? []).map((app) =>
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: app.name, description: app.description, labels: app.labels },
        spec: {
          uri: app.uri,
          public_addr: app.public_addr,
          insecure_skip_verify: app.insecure_skip_verify,
          rewrite: app.rewrite,
        },
      }),
    ),
    databases: (file.databases ?? []).map((db) =>
      databaseResourceSchema.parse({
        kind: 'db',
        metadata: { name: db.name, description: db.description, labels: db.labels },
        spec: {
          protocol: db.protocol,
          uri: db.uri,
          ca_cert: db.ca_cert_file
            ? readPem(db.ca_cert_file, `databases.${db.name}.ca_cert_file`)
            : undefined,
          tls: db.tls,
        },
      }),
    ),
    desktops: (file.desktops ?? []).map(
      ({ name, description, labels, vnc_password_file, ...spec }) =>
        desktopResourceSchema.parse({
          kind: 'desktop',
          metadata: { name, description, labels },
          spec: {
            ...spec,
            vnc_password: vnc_password_file
              ? readSecretFile(vnc_password_file, `desktops.${name}.vnc_password_file`)
              : undefined,
          },
        }),
    ),
    kubeClusters: (file.kubernetes_clusters ?? []).map(({ name, description, labels, ...spec }) =>
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name, description, labels },
        spec: {
          ...spec,
          ca_cert: spec.ca_cert_file
            ? readPem(spec.ca_cert_file, `kubernetes_clusters.${name}.ca_cert_file`)
            : undefined,
          ca_cert_file: undefined,
        },
      }),
    ),
  };
}
