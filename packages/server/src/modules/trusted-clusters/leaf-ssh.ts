import { agentPaths } from '@postern/contracts';
import http, { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { ClusterKey } from './cluster-keys.js';
import type { ClusterSsh, RootSshConnection, RootSshUser, SshTarget } from './cluster-ssh.js';
import { signForwardedIdentity } from './forwarded-identity.js';
import { asSocket } from '../../net/post-json.js';
import type { LeafSessions } from './leaf-sessions.js';

/**
 * SSH through the root to a leaf's server, over the leaf's tunnel: the root opens the tunnel's
 * HTTP to the leaf, asks to upgrade to `postern-ssh` with the user's identity signed as for web
 * calls, and from the leaf's `101` on the stream is the client's own SSH connection to the
 * server, which the leaf's SSH proxy ends (RBAC, recording and audit are the leaf's).
 */
export const leafSshProtocol = 'postern-ssh';

const headers = {
  identity: 'x-postern-identity',
  host: 'x-postern-ssh-host',
  port: 'x-postern-ssh-port',
  client: 'x-postern-client',
} as const;

/** The longest a root user's SSH admission lasts: a root certificate's, at most. */
const maxSshTtlMs = 12 * 3600_000;
const answerTimeoutMs = 15_000;

/** The root's half: a stream to the leaf's SSH, or undefined when the leaf has no such server. */
export async function dialLeafSsh(
  leaf: string,
  user: RootSshUser,
  target: SshTarget,
  options: {
    rootName: string;
    identityKey: () => Promise<ClusterKey>;
    dial: (leaf: string) => Promise<Duplex>;
    now: Clock;
  },
): Promise<Duplex | undefined> {
  const expires = new Date(Math.min(user.expires.getTime(), options.now() + maxSshTtlMs));
  const token = await signForwardedIdentity(
    {
      user: user.user,
      roles: user.roles,
      traits: user.traits,
      expires,
      sessionMfa: user.sessionMfa,
    },
    { key: (await options.identityKey()).privateKey, root: options.rootName, leaf },
  );
  const stream = await options.dial(leaf);
  return new Promise((resolve, reject) => {
    const request = http.request({
      path: agentPaths.leafSsh,
      host: leaf,
      headers: {
        connection: 'Upgrade',
        upgrade: leafSshProtocol,
        [headers.identity]: token,
        [headers.host]: target.host,
        [headers.port]: String(target.port),
        [headers.client]: target.clientAddr,
      },
      createConnection: () => asSocket(stream),
      timeout: answerTimeoutMs,
    });
    request.on('upgrade', (_response, socket, head) => {
      socket.setTimeout(0);
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.on('response', (response) => {
      response.resume();
      stream.destroy();
      if (response.statusCode === 404) return resolve(undefined);
      reject(new Error(`${leaf} answered HTTP ${response.statusCode ?? 0}`));
    });
    request.on('timeout', () => request.destroy(new Error(`${leaf} did not answer in time`)));
    request.on('error', reject);
    request.end();
  });
}

const targetSchema = z.object({
  [headers.identity]: z
    .string()
    .min(1)
    .max(64 * 1024),
  [headers.host]: z.string().min(1).max(255),
  [headers.port]: z.coerce.number().int().min(1).max(65_535),
  [headers.client]: z.string().max(64).default(''),
});

/**
 * The leaf's half, for an upgrade that came through `root`'s tunnel: the identity the root signed
 * becomes a user of this cluster (leaf-sessions.ts), and the SSH proxy serves the stream. A user
 * the leaf refuses still reaches the SSH proxy, which tells their client why.
 */
export async function serveLeafSsh(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  root: string,
  options: {
    leafSessions: LeafSessions;
    clusterSsh: ClusterSsh;
    /** The root's user CA keys, from its tunnel's `ready` (undefined before it). */
    userCaKeys: (root: string) => string[] | undefined;
    clusterName: string;
    log: (message: string, fields?: object) => void;
  },
): Promise<void> {
  const answer = (status: number, text: string) =>
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: text/plain\r\n` +
        `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  const parsed = targetSchema.safeParse(request.headers);
  if (!parsed.success) return void answer(400, 'malformed SSH request');
  const userCaKeys = options.userCaKeys(root);
  if (!userCaKeys?.length) return void answer(503, `the tunnel to ${root} is not ready`);
  const fields = parsed.data;
  let admitted: RootSshConnection['admitted'];
  try {
    const user = await options.leafSessions.admitUser(root, fields[headers.identity], maxSshTtlMs);
    admitted = { user: user.user, roles: user.roles, rootSessionMfa: user.sessionMfa };
  } catch (error) {
    const refused = error instanceof ApiError ? error.message : 'internal error';
    if (!(error instanceof ApiError)) options.log('ssh from a root failed', { root, error });
    admitted = { refused };
  }
  const serve = options.clusterSsh.serve({
    root,
    admitted,
    userCaKeys,
    host: fields[headers.host],
    port: fields[headers.port],
    clientAddr: fields[headers.client],
  });
  if (!serve) return void answer(404, `no such server on ${options.clusterName}`);
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nupgrade: ${leafSshProtocol}\r\nconnection: Upgrade\r\n\r\n`,
  );
  if (head.length > 0) socket.unshift(head);
  serve(socket);
}
