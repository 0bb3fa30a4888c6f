import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { hostActor } from '../access-control/access/actor.js';
import type { TestApp } from './app-harness.testkit.js';
import { b64, nextTotp, type TestUser } from './identity.testkit.js';

/**
 * A role for certificate tests: every node, logins root and ubuntu plus the user's own, a 2 h
 * max_session_ttl, agent forwarding on and port forwarding off.
 */
export async function createOpsRole(app: TestApp, name = 'ops'): Promise<void> {
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name },
      spec: {
        options: { max_session_ttl: '2h', forward_agent: true, port_forwarding: false },
        allow: {
          node_labels: { '*': '*' },
          logins: ['root', 'ubuntu', '{{internal.logins}}'],
          rules: [{ resources: ['node'], verbs: ['list', 'read'] }],
        },
      },
    }),
    hostActor('test'),
  );
}

/** `POST ssh/certs` with the user's password and next TOTP code, unless overridden. */
export function requestCertificate(
  app: TestApp,
  user: TestUser,
  publicKey: string,
  overrides: Record<string, unknown> = {},
) {
  return app.server.inject({
    method: 'POST',
    url: '/v1/webapi/ssh/certs',
    payload: {
      user: user.name,
      password: b64(user.password!),
      otp_token: nextTotp(app, user.totpSecret!),
      pub_key: publicKey,
      ...overrides,
    },
  });
}

/** What `ssh-keygen -L` says about a certificate line: OpenSSH's own reading of it. */
export async function describeCertificate(certificate: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-cert-'));
  try {
    const file = path.join(dir, 'id-cert.pub');
    await writeFile(file, `${certificate}\n`);
    const { stdout } = await promisify(execFile)('ssh-keygen', ['-L', '-f', file]);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The principals `ssh-keygen -L` lists. */
export function principalsOf(description: string): string[] {
  const section = /Principals:\s*\n((?:\s{16}\S.*\n)*)/.exec(description)?.[1] ?? '';
  return section
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}
