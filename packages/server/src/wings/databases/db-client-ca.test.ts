import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../backend/index.js';
import { certifiedRoute, DatabaseClientCa } from './db-client-ca.js';

const backend = new MemoryBackend();
afterAll(() => backend.close());

const cnOf = (pem: string) => new x509.X509Certificate(pem).subjectName.getField('CN')[0];

describe('the database CAs', () => {
  it('puts any database user name in the CN exactly, escapes and all', async () => {
    const ca = await DatabaseClientCa.load(backend, 'test');
    for (const user of ['a\\b', 'o,neil', 'x+y', 'zoë/1', 'plain']) {
      expect(cnOf((await ca.clientCertificate(user)).certPem)).toBe(user);
    }
  });

  it('keeps the client and access CAs apart, and a route certificate names its route', async () => {
    const client = await DatabaseClientCa.load(backend, 'test');
    const access = await DatabaseClientCa.load(backend, 'test', Date.now, 'access');
    expect(access.certPem).not.toBe(client.certPem);
    const route = { user: 'al,ice', db: 'orders', dbUser: 'read/er', dbName: 'app db' };
    const issued = await access.routeCertificate(route, 60_000);
    const cert = new X509Certificate(issued.certPem);
    expect(cert.checkIssued(new X509Certificate(access.certPem))).toBe(true);
    expect(cert.checkIssued(new X509Certificate(client.certPem))).toBe(false);
    expect(
      certifiedRoute({
        subject: { CN: cnOf(issued.certPem) },
        subjectaltname: cert.subjectAltName,
      }),
    ).toEqual(route);
    // A MySQL route with no default database, and one naming no database user (never signed).
    const bare = { ...route, dbName: '' };
    const bareCert = new X509Certificate((await access.routeCertificate(bare, 60_000)).certPem);
    const peer = { subject: { CN: cnOf(issued.certPem) }, subjectaltname: bareCert.subjectAltName };
    expect(certifiedRoute(peer)).toEqual(bare);
    const userless = { ...route, dbUser: '' };
    const userlessCert = new X509Certificate(
      (await access.routeCertificate(userless, 60_000)).certPem,
    );
    expect(
      certifiedRoute({ ...peer, subjectaltname: userlessCert.subjectAltName }),
    ).toBeUndefined();
    // A leaf's database, from the root's listener.
    const onLeaf = { ...route, cluster: 'leaf-one' };
    const leafCert = new X509Certificate((await access.routeCertificate(onLeaf, 60_000)).certPem);
    expect(certifiedRoute({ ...peer, subjectaltname: leafCert.subjectAltName })).toEqual(onLeaf);
    // With its protocol, so that only that protocol's listener takes it.
    const myLeaf = { ...bare, cluster: 'leaf-one', protocol: 'mysql' as const };
    const myCert = new X509Certificate((await access.routeCertificate(myLeaf, 60_000)).certPem);
    expect(certifiedRoute({ ...peer, subjectaltname: myCert.subjectAltName })).toEqual(myLeaf);
    const alien = myCert.subjectAltName!.replace(/\/mysql$/, '/oracle');
    expect(certifiedRoute({ ...peer, subjectaltname: alien })).toBeUndefined();
    // The MFA device of the login it was issued on, for an mfa_device lock.
    const proven = { ...route, mfaDevice: '0b5d6f3e-8c1a-4f2b-9e7d-1a2b3c4d5e6f' };
    const provenCert = new X509Certificate((await access.routeCertificate(proven, 60_000)).certPem);
    expect(certifiedRoute({ ...peer, subjectaltname: provenCert.subjectAltName })).toEqual(proven);
    // A bot's: the instance it was issued to, for a bot_instance lock.
    const botRoute = { ...route, botInstance: '5b0c4a3e-9a57-4d53-a7c1-2f3b8f0c1a11' };
    const botCert = new X509Certificate((await access.routeCertificate(botRoute, 60_000)).certPem);
    expect(certifiedRoute({ ...peer, subjectaltname: botCert.subjectAltName })).toEqual(botRoute);
  });
});
