import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../../../config/config-error.js';
import type { KubeTarget } from './kube-target.js';

const clusterSchema = z.object({
  server: z.string(),
  'certificate-authority': z.string().optional(),
  'certificate-authority-data': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  'tls-server-name': z.string().optional(),
});
const userSchema = z
  .object({
    token: z.string().optional(),
    tokenFile: z.string().optional(),
    'client-certificate': z.string().optional(),
    'client-certificate-data': z.string().optional(),
    'client-key': z.string().optional(),
    'client-key-data': z.string().optional(),
    exec: z.unknown().optional(),
    'auth-provider': z.unknown().optional(),
  })
  .nullish()
  .transform((user) => user ?? {});

/** The parts of a kubeconfig Postern reads; anything else in it is left alone. */
const kubeconfigSchema = z.object({
  'current-context': z.string().optional(),
  clusters: z.array(z.object({ name: z.string(), cluster: clusterSchema })).default([]),
  users: z.array(z.object({ name: z.string(), user: userSchema })).default([]),
  contexts: z
    .array(
      z.object({ name: z.string(), context: z.object({ cluster: z.string(), user: z.string() }) }),
    )
    .default([]),
});

/**
 * The API server and credential of a kubeconfig's context (`context`, or its current one). File
 * paths inside are relative to the kubeconfig's folder, as kubectl reads them. Credentials that
 * run a program (`exec`, `auth-provider`) are refused: the proxy would run it for every request.
 */
export function readKubeconfig(
  file: string,
  context: string | undefined,
  what: string,
): KubeTarget {
  const dir = path.dirname(path.resolve(file));
  const read = (name: string) => {
    try {
      return readFileSync(path.resolve(dir, name), 'utf8');
    } catch (error) {
      throw new ConfigError(`${what}: cannot read ${name}: ${(error as Error).message}`);
    }
  };
  let parsed: z.infer<typeof kubeconfigSchema>;
  try {
    parsed = kubeconfigSchema.parse(parse(read(file)));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${what}: ${file} is not a kubeconfig Postern can read`);
  }
  const contextName = context ?? parsed['current-context'];
  const chosen = parsed.contexts.find((entry) => entry.name === contextName)?.context;
  if (!chosen) {
    throw new ConfigError(`${what}: ${file} has no context ${contextName ?? '(none is current)'}`);
  }
  const cluster = parsed.clusters.find((entry) => entry.name === chosen.cluster)?.cluster;
  const user = parsed.users.find((entry) => entry.name === chosen.user)?.user;
  if (!cluster || !user) {
    throw new ConfigError(`${what}: context ${contextName} names a cluster or user ${file} lacks`);
  }
  if (user.exec || user['auth-provider']) {
    throw new ConfigError(
      `${what}: user ${chosen.user} signs in by running a program (exec or auth-provider), which Postern does not do: give it a token or a client certificate`,
    );
  }
  const data = (inline: string | undefined, fileName: string | undefined) =>
    inline ? Buffer.from(inline, 'base64').toString('utf8') : fileName ? read(fileName) : undefined;
  const token = user.token ?? (user.tokenFile ? read(user.tokenFile).trim() : undefined);
  const clientCert = data(user['client-certificate-data'], user['client-certificate']);
  const clientKey = data(user['client-key-data'], user['client-key']);
  if (!token && !(clientCert && clientKey)) {
    throw new ConfigError(`${what}: user ${chosen.user} has no token and no client certificate`);
  }
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new ConfigError(`${what}: ${cluster.server} is not a URL`);
  }
  if (server.protocol !== 'https:') {
    throw new ConfigError(`${what}: the API server must be reached over https, not ${server.href}`);
  }
  return {
    server,
    ca: data(cluster['certificate-authority-data'], cluster['certificate-authority']),
    servername: cluster['tls-server-name'],
    insecureSkipVerify: cluster['insecure-skip-tls-verify'] ?? false,
    token,
    clientCert,
    clientKey,
  };
}
