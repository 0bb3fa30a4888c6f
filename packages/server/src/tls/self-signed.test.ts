import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadOrCreateTls } from './self-signed.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-tls-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('self-signed TLS', () => {
  it('generates a certificate for the host names into the data dir, key readable by owner only', async () => {
    const tls = await loadOrCreateTls({ dataDir: dir, hostnames: ['proxy.example.com'] });
    expect(tls.source).toBe('generated');
    const cert = new X509Certificate(tls.cert);
    expect(cert.checkPrivateKey(createPrivateKey(tls.key))).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('DNS:proxy.example.com');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.checkHost('proxy.example.com')).toBe('proxy.example.com');
    expect(Date.parse(cert.validTo)).toBeGreaterThan(Date.now() + 300 * 24 * 3600 * 1000);
    const keyMode = (await stat(path.join(dir, 'tls', 'self-signed.key'))).mode & 0o777;
    expect(keyMode).toBe(0o600);
  });

  it('reuses the stored certificate on the next start', async () => {
    const first = await loadOrCreateTls({ dataDir: dir, hostnames: [] });
    const second = await loadOrCreateTls({ dataDir: dir, hostnames: [] });
    expect(second.source).toBe('data-dir');
    expect(second.cert).toBe(first.cert);
  });

  it('makes a new one when the stored one lacks a name now wanted (the app hosts’ wildcard)', async () => {
    const other = path.join(dir, 'wildcard');
    const before = await loadOrCreateTls({ dataDir: other, hostnames: ['proxy.example.com'] });
    const wanted = ['proxy.example.com', '*.proxy.example.com'];
    const after = await loadOrCreateTls({ dataDir: other, hostnames: wanted });
    expect(after.source).toBe('generated');
    expect(after.cert).not.toBe(before.cert);
    const cert = new X509Certificate(after.cert);
    expect(cert.checkHost('grafana.proxy.example.com')).toBe('*.proxy.example.com');
    expect((await loadOrCreateTls({ dataDir: other, hostnames: wanted })).source).toBe('data-dir');
  });

  it('makes a new one at start when the stored one ends within a month', async () => {
    const other = path.join(dir, 'ageing');
    const first = await loadOrCreateTls({ dataDir: other, hostnames: [] });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // 340 days on, the year-long certificate has 25 days left: replaced, valid for a year.
      vi.setSystemTime(Date.now() + 340 * 24 * 3600 * 1000);
      const renewed = await loadOrCreateTls({ dataDir: other, hostnames: [] });
      expect(renewed.source).toBe('generated');
      expect(renewed.cert).not.toBe(first.cert);
      const validTo = Date.parse(new X509Certificate(renewed.cert).validTo);
      expect(validTo).toBeGreaterThan(Date.now() + 300 * 24 * 3600 * 1000);
      expect((await loadOrCreateTls({ dataDir: other, hostnames: [] })).source).toBe('data-dir');
    } finally {
      vi.useRealTimers();
    }
  });

  it('uses configured files instead of generating', async () => {
    const generated = await loadOrCreateTls({ dataDir: dir, hostnames: [] });
    const configured = await loadOrCreateTls({
      dataDir: path.join(dir, 'elsewhere'),
      hostnames: [],
      configured: {
        certFile: path.join(dir, 'tls', 'self-signed.crt'),
        keyFile: path.join(dir, 'tls', 'self-signed.key'),
      },
    });
    expect(configured).toMatchObject({ source: 'configured', cert: generated.cert });
  });
});
