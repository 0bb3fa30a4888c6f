import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import { afterAll, beforeAll } from 'vitest';
import { openBackend, type Backend } from '../../backend/index.js';
import { ClusterCa } from '../ca.service.js';
import { connectToNode } from '../client.js';
import type { HostUserGrant } from '../host-user-extension.js';
import { generateEd25519Key, parsePublicKey } from '../keys.js';
import { NodeService } from './index.js';

/**
 * A NodeService on 127.0.0.1 trusting a fresh cluster user CA, for the duration of a test file,
 * with helpers to issue certificates and log in. `lockedUsers` maps a user (or `role:<roles>`) to
 * a lock message; `logs` collects what the service logged.
 */
export function nodeServiceFixture() {
  const hostKey = generateEd25519Key();
  const userKey = generateEd25519Key();
  const lockedUsers = new Map<string, string>();
  const logs: string[] = [];
  const state = {} as { backend: Backend; ca: ClusterCa; service: NodeService; port: number };

  beforeAll(async () => {
    state.backend = await openBackend({ type: 'memory' });
    state.ca = await ClusterCa.loadOrCreate(state.backend, 'test-cluster');
    state.service = new NodeService({
      hostKeyPem: hostKey.privateKeyPem,
      userCaPublicKeys: () => [state.ca.userCaPublicKey],
      lockedMessage: ({ user, roles }) =>
        lockedUsers.get(user) ?? lockedUsers.get(`role:${roles.join(',')}`),
      log: (msg, fields) => logs.push(`${msg} ${JSON.stringify(fields)}`),
    });
    ({ port: state.port } = await state.service.listen('127.0.0.1', 0));
  });

  afterAll(async () => {
    await state.service?.close();
    await state.backend?.close();
  });

  const certificate = (
    opts: {
      logins?: string[];
      user?: string;
      roles?: string[];
      now?: Date;
      hostUser?: HostUserGrant;
    } = {},
  ) =>
    state.ca.issueUserCertificate({
      user: opts.user ?? 'alice',
      roles: opts.roles ?? ['access'],
      logins: opts.logins ?? ['root'],
      publicKey: userKey.publicKey,
      ttlMs: 60_000,
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.hostUser ? { hostUser: opts.hostUser } : {}),
    });

  const trustHost = (blob: Buffer) => blob.equals(parsePublicKey(hostKey.publicKey).blob);

  /** Logs in with a certificate for `userKey`, over TCP or over the given stream. */
  const login = (
    cert = certificate(),
    opts: { user?: string; port?: number; sock?: Duplex } = {},
  ) =>
    connectToNode({
      ...(opts.sock ? { sock: opts.sock } : { host: '127.0.0.1', port: opts.port ?? state.port }),
      login: opts.user ?? 'root',
      key: { privateKeyPem: userKey.privateKeyPem, certificate: cert },
      verifyHostKey: trustHost,
    });

  async function withClient<T>(run: (client: Client) => Promise<T>): Promise<T> {
    const client = await login();
    try {
      return await run(client);
    } finally {
      client.end();
    }
  }

  return { state, hostKey, userKey, lockedUsers, logs, certificate, trustHost, login, withClient };
}
