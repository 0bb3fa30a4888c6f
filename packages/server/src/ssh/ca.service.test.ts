import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBackend } from '../backend/index.js';
import { SqliteBackend } from '../backend/sqlite.js';
import { ClusterCa, POSTERN_ROLES_EXTENSION } from './ca.service.js';
import { CertAuthorityStore } from './ca.store.js';
import { parseCertificate, verifyCertificate } from './certificates.js';
import { generateEd25519Key, parsePublicKey } from './keys.js';

describe('ClusterCa', () => {
  it('creates both CAs once and loads the same ones afterwards', async () => {
    const backend = await openBackend({ type: 'memory' });
    try {
      const first = await ClusterCa.loadOrCreate(backend, 'prod');
      const again = await ClusterCa.loadOrCreate(backend, 'prod');
      expect(again.userCaPublicKey).toBe(first.userCaPublicKey);
      expect(again.hostCaPublicKey).toBe(first.hostCaPublicKey);
      expect(first.userCaPublicKey).not.toBe(first.hostCaPublicKey);
      const stored = await new CertAuthorityStore(backend).get('user');
      expect(stored).toMatchObject({
        kind: 'cert_authority',
        version: 'v2',
        metadata: { name: 'user' },
        spec: { type: 'user', clusterName: 'prod', publicKey: first.userCaPublicKey },
      });
      expect(stored?.spec.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      expect((await backend.get('/cert_authorities/host'))?.value).toContain(first.hostCaPublicKey);
    } finally {
      await backend.close();
    }
  });

  it('ends with one CA when several start at once, on one backend or two processes on one database', async () => {
    const memory = await openBackend({ type: 'memory' });
    const racers = await Promise.all(
      [1, 2, 3, 4].map(() => ClusterCa.loadOrCreate(memory, 'prod')),
    );
    expect(new Set(racers.map((ca) => ca.userCaPublicKey)).size).toBe(1);
    expect(new Set(racers.map((ca) => ca.hostCaPublicKey)).size).toBe(1);
    await memory.close();

    const dir = await mkdtemp(path.join(tmpdir(), 'postern-ca-'));
    const [one, two] = [
      new SqliteBackend(path.join(dir, 'db')),
      new SqliteBackend(path.join(dir, 'db')),
    ];
    try {
      const [a, b] = await Promise.all([
        ClusterCa.loadOrCreate(one, 'prod'),
        ClusterCa.loadOrCreate(two, 'prod'),
      ]);
      expect(a.userCaPublicKey).toBe(b.userCaPublicKey);
      expect(a.hostCaPublicKey).toBe(b.hostCaPublicKey);
    } finally {
      await one.close();
      await two.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('issues user certificates: logins as principals, the user as key id, roles in an extension', async () => {
    const backend = await openBackend({ type: 'memory' });
    const ca = await ClusterCa.loadOrCreate(backend, 'prod');
    await backend.close();
    const key = generateEd25519Key();
    const now = new Date('2031-05-01T10:00:00Z');
    const line = ca.issueUserCertificate({
      user: 'alice',
      roles: ['access', 'editor'],
      logins: ['root', 'ubuntu'],
      publicKey: key.publicKey,
      ttlMs: 3600_000,
      permitPortForwarding: true,
      now,
    });
    const cert = parseCertificate(line);
    expect(cert).toMatchObject({
      type: 'user',
      keyId: 'alice',
      principals: ['root', 'ubuntu'],
      validAfter: new Date('2031-05-01T09:59:00Z'),
      validBefore: new Date('2031-05-01T11:00:00Z'),
      extensions: {
        'permit-pty': '',
        'permit-port-forwarding': '',
        [POSTERN_ROLES_EXTENSION]: 'access,editor',
      },
    });
    expect(Object.keys(cert.extensions)).not.toContain('permit-agent-forwarding');
    expect(cert.publicKeyBlob.equals(parsePublicKey(key.publicKey).blob)).toBe(true);
    expect(
      verifyCertificate(cert, {
        caPublicKeys: [ca.userCaPublicKey],
        type: 'user',
        principal: 'ubuntu',
        now,
      }),
    ).toEqual({ ok: true });
    // The host CA never vouches for users.
    expect(
      verifyCertificate(cert, { caPublicKeys: [ca.hostCaPublicKey], type: 'user', now }).ok,
    ).toBe(false);

    const host = parseCertificate(
      ca.issueHostCertificate({
        publicKey: key.publicKey,
        principals: ['node1.example'],
        ttlMs: 60_000,
        hostId: 'uuid-1',
        now,
      }),
    );
    expect(host).toMatchObject({
      type: 'host',
      keyId: 'uuid-1',
      principals: ['node1.example'],
      extensions: {},
    });
    expect(
      verifyCertificate(host, {
        caPublicKeys: [ca.hostCaPublicKey],
        type: 'host',
        principal: 'node1.example',
        now,
      }),
    ).toEqual({ ok: true });
  });

  it('prints the sshd TrustedUserCAKeys line and the known_hosts line', async () => {
    const backend = await openBackend({ type: 'memory' });
    const ca = await ClusterCa.loadOrCreate(backend, 'prod');
    await backend.close();
    const [type, data] = ca.userCaPublicKey.split(' ');
    expect(ca.trustedUserCaKeysLine()).toBe(`${type} ${data} postern-user-ca@prod`);
    expect(ca.knownHostsLine()).toBe(
      `@cert-authority * ${ca.hostCaPublicKey.split(' ').slice(0, 2).join(' ')} postern-host-ca`,
    );
  });
});
