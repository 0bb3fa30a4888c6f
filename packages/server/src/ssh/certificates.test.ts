import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  parseCertificate,
  signCertificate,
  verifyCertificate,
  type SignCertificateOptions,
} from './certificates.js';
import {
  fingerprint,
  generateEd25519Key,
  parsePublicKey,
  publicKeyFromPrivatePem,
} from './keys.js';

const ca = generateEd25519Key();
const otherCa = generateEd25519Key();
const subject = generateEd25519Key();
const now = new Date('2030-01-01T12:00:00Z');
const hour = 3600_000;

const baseOptions: SignCertificateOptions = {
  type: 'user',
  publicKey: subject.publicKey,
  keyId: 'alice',
  principals: ['root', 'alice'],
  validAfter: new Date(now.getTime() - hour),
  validBefore: new Date(now.getTime() + hour),
  extensions: { 'permit-pty': '', 'postern-roles@postern.dev': 'access,editor' },
  serial: 42n,
};

const check = (line: string, overrides: Partial<Parameters<typeof verifyCertificate>[1]> = {}) =>
  verifyCertificate(parseCertificate(line), {
    caPublicKeys: [ca.publicKey],
    type: 'user',
    principal: 'root',
    now,
    ...overrides,
  });

describe('keys', () => {
  it('generates Ed25519 keys whose public line matches the private key and fingerprints like ssh-keygen', async () => {
    expect(subject.publicKey).toMatch(
      /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]+={0,2}$/,
    );
    expect(publicKeyFromPrivatePem(subject.privateKeyPem)).toBe(subject.publicKey);
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-keys-'));
    try {
      await writeFile(path.join(dir, 'key.pub'), `${subject.publicKey} comment\n`);
      const { stdout } = await promisify(execFile)('ssh-keygen', [
        '-l',
        '-f',
        path.join(dir, 'key.pub'),
      ]);
      expect(stdout.split(' ')[1]).toBe(fingerprint(subject.publicKey));
      expect(fingerprint(parsePublicKey(subject.publicKey).blob)).toBe(
        fingerprint(subject.publicKey),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses garbage with a clear error', () => {
    expect(() => parsePublicKey('')).toThrow(/invalid public key/);
    expect(() => parsePublicKey('ssh-ed25519 !!!')).toThrow(/not base64/);
    expect(() => parsePublicKey('ssh-rsa ' + subject.publicKey.split(' ')[1])).toThrow(
      /says ssh-rsa/,
    );
    expect(() => parsePublicKey('ssh-ed25519 AAAA')).toThrow(/invalid public key/);
  });
});

describe('certificates', () => {
  it('round-trips every field and verifies', () => {
    const line = signCertificate(ca.privateKeyPem, baseOptions);
    expect(line).toMatch(/^ssh-ed25519-cert-v01@openssh\.com AAAA\S+ alice$/);
    const cert = parseCertificate(line);
    expect(cert).toMatchObject({
      type: 'user',
      keyId: 'alice',
      principals: ['root', 'alice'],
      validAfter: baseOptions.validAfter,
      validBefore: baseOptions.validBefore,
      extensions: { 'permit-pty': '', 'postern-roles@postern.dev': 'access,editor' },
      criticalOptions: {},
      serial: 42n,
    });
    expect(cert.publicKeyBlob.equals(parsePublicKey(subject.publicKey).blob)).toBe(true);
    expect(cert.signatureKeyBlob.equals(parsePublicKey(ca.publicKey).blob)).toBe(true);
    expect(check(line)).toEqual({ ok: true });
  });

  it('refuses a tampered certificate, another CA, the wrong type or principal, and times outside the window', () => {
    const line = signCertificate(ca.privateKeyPem, baseOptions);
    const blob = parsePublicKey(line).blob;
    // Flip one byte inside the key id ("alice" → "blice"): the signature no longer matches.
    const tampered = Buffer.from(blob);
    tampered[blob.indexOf('alice')] = 'b'.charCodeAt(0);
    expect(
      verifyCertificate(parseCertificate(tampered), {
        caPublicKeys: [ca.publicKey],
        type: 'user',
        now,
      }),
    ).toEqual({
      ok: false,
      reason: 'certificate signature is invalid',
    });
    expect(check(line, { caPublicKeys: [otherCa.publicKey] })).toMatchObject({
      ok: false,
      reason: /trusted CA/,
    });
    expect(check(signCertificate(otherCa.privateKeyPem, baseOptions))).toMatchObject({ ok: false });
    expect(check(line, { caPublicKeys: [otherCa.publicKey, ca.publicKey] })).toEqual({ ok: true });
    expect(check(line, { principal: 'bob' })).toMatchObject({ ok: false, reason: /principal bob/ });
    expect(check(line, { type: 'host' })).toMatchObject({ ok: false, reason: /host certificate/ });
    expect(check(line, { now: new Date(now.getTime() + 2 * hour) })).toMatchObject({
      ok: false,
      reason: /expired/,
    });
    expect(check(line, { now: new Date(now.getTime() - 2 * hour) })).toMatchObject({
      ok: false,
      reason: /not valid before/,
    });
    const host = signCertificate(ca.privateKeyPem, {
      ...baseOptions,
      type: 'host',
      principals: ['node1'],
    });
    expect(check(host, { type: 'host', principal: 'node1' })).toEqual({ ok: true });
    expect(check(host)).toMatchObject({ ok: false, reason: /user certificate/ });
  });

  it('refuses malformed blobs with a clear error', () => {
    const blob = parsePublicKey(signCertificate(ca.privateKeyPem, baseOptions)).blob;
    expect(() => parseCertificate(blob.subarray(0, blob.length - 5))).toThrow(
      /malformed certificate/,
    );
    expect(() => parseCertificate(Buffer.concat([blob, Buffer.from([0])]))).toThrow(/trailing/);
    expect(() => parseCertificate(subject.publicKey)).toThrow(
      /unsupported certificate type ssh-ed25519/,
    );
  });

  it('writes certificates that ssh-keygen -L reads', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-cert-'));
    try {
      const file = path.join(dir, 'id-cert.pub');
      await writeFile(
        file,
        signCertificate(ca.privateKeyPem, {
          ...baseOptions,
          criticalOptions: { 'source-address': '10.0.0.0/8', 'force-command': '/bin/true' },
        }) + '\n',
      );
      const { stdout } = await promisify(execFile)('ssh-keygen', ['-L', '-f', file]);
      expect(stdout).toContain('Type: ssh-ed25519-cert-v01@openssh.com user certificate');
      expect(stdout).toContain('Key ID: "alice"');
      expect(stdout).toContain('Serial: 42');
      expect(stdout).toContain(`Signing CA: ED25519 ${fingerprint(ca.publicKey)}`);
      expect(stdout).toMatch(/Principals:\s+root\s+alice/);
      // ssh-keygen prints extensions it does not know as the hex of their data: string("access,editor").
      const rolesData = `0000000d${Buffer.from('access,editor').toString('hex')}`;
      expect(stdout).toMatch(
        new RegExp(
          `Extensions:\\s+permit-pty\\s+postern-roles@postern\\.dev UNKNOWN OPTION: ${rolesData}`,
        ),
      );
      expect(stdout).toMatch(/force-command \/bin\/true\s+source-address 10\.0\.0\.0\/8/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
