import { apiPaths, signDatabaseCertResponseSchema } from '@postern/contracts';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

// Server certificates for databases (POST sign/db), signed by the database client CA.

let app: TestApp;
let admin: Record<string, string>;
let reader: Record<string, string>;
const cluster = 'test-cluster';

beforeAll(async () => {
  app = await createTestApp();
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  const everywhere = { db_labels: { '*': '*' }, db_users: ['*'], db_names: ['*'] };
  await role('db-admin', {
    ...everywhere,
    rules: [{ resources: ['db_server'], verbs: ['list', 'read', 'create'] }],
  });
  await role('db-reader', everywhere);
  admin = await app.signIn(['db-admin'], 'dana');
  reader = await app.signIn(['db-reader'], 'rita');
});
afterAll(() => app.close());

const post = (url: string, payload: unknown, headers?: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, payload: payload as object, headers });
const auditCodes = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 500 })
  ).events.filter((event) => event.code === code);

describe('POST /sites/{clusterId}/sign/db', () => {
  const url = apiPaths.signDatabaseCert(cluster);

  it('needs a session (401) and dbServers create (403)', async () => {
    expect((await post(url, { hostname: 'db1.internal' })).statusCode).toBe(401);
    const denied = await post(url, { hostname: 'db1.internal' }, reader);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toMatch(/create on dbServers is not allowed/);
  });

  it('signs a server certificate for the host name that TLS clients trusting the CA accept', async () => {
    const before = Date.now();
    const res = await post(url, { hostname: 'DB1.internal', ttl: '720h' }, admin);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const signed = signDatabaseCertResponseSchema.parse(res.json());
    const ca = new X509Certificate(signed.ca);
    expect(signed.ca).toBe((await app.services.dbClientCa()).certPem);
    const cert = new X509Certificate(signed.cert);
    expect(cert.subjectAltName).toBe('DNS:db1.internal');
    expect(cert.checkHost('db1.internal')).toBe('db1.internal');
    expect(cert.subject).not.toMatch(/CN=/);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    const expires = Date.parse(cert.validTo);
    expect(expires).toBeGreaterThanOrEqual(before + 720 * 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 720 * 3600_000 + 1000);
    expect(Math.abs(Date.parse(signed.expires) - expires)).toBeLessThan(1000);

    // A TLS server with it, and a client that trusts only the CA and checks the name.
    const server = createTlsServer({ cert: signed.cert, key: signed.key }, (socket) =>
      socket.end('hello'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const greeting = await new Promise<string>((resolve, reject) => {
        const client = tlsConnect({
          host: '127.0.0.1',
          port,
          servername: 'db1.internal',
          ca: signed.ca,
        });
        client.once('error', reject);
        client.on('data', (chunk: Buffer) => resolve(chunk.toString()));
      });
      expect(greeting).toBe('hello');
    } finally {
      server.close();
    }

    expect(await auditCodes('TC000I')).toEqual([
      expect.objectContaining({ user: 'dana', cert_type: 'db_server', hostname: 'db1.internal' }),
    ]);
  });

  it('names an IP address as one, and lasts 2160h unless asked', async () => {
    const res = await post(url, { hostname: '10.1.2.3' }, admin);
    const signed = signDatabaseCertResponseSchema.parse(res.json());
    const cert = new X509Certificate(signed.cert);
    expect(cert.subjectAltName).toBe('IP Address:10.1.2.3');
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    const v6 = await post(url, { hostname: 'fd00::5' }, admin);
    expect(new X509Certificate(v6.json().cert).checkIP('fd00::5')).toBe('fd00::5');
  });

  it('refuses bad host names and lifetimes (400) and issues nothing', async () => {
    const issued = (await auditCodes('TC000I')).length;
    const bad = async (payload: object, message: RegExp) => {
      const res = await post(url, payload, admin);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toMatch(message);
    };
    await bad({}, /^hostname: /);
    await bad(
      { hostname: 'db_1.internal' },
      /^hostname: a DNS name \(db1.example.com\) or an IP address$/,
    );
    await bad({ hostname: '10.0.0.256' }, /^hostname: a DNS name/);
    await bad({ hostname: '*.internal' }, /^hostname: a DNS name/);
    await bad({ hostname: 'db1', ttl: '90d' }, /ttl: expected a duration like '2160h'/);
    await bad({ hostname: 'db1', ttl: '8761h' }, /ttl: from 1m to 8760h \(a year\)/);
    await bad({ hostname: 'db1', ttl: '0' }, /ttl: from 1m/);
    await bad({ hostname: 'db1', format: 'tar' }, /unknown or unchangeable field: format/);
    expect(await auditCodes('TC000I')).toHaveLength(issued);
  });
});
