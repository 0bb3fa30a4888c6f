import { sshCertsResponseSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, type TestUser } from '../../testing/identity.testkit.js';
import {
  createOpsRole,
  describeCertificate,
  principalsOf,
  requestCertificate,
} from '../../testing/ssh-login.testkit.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { hostActor } from '../../access-control/access/actor.js';

let app: TestApp;
const key = generateEd25519Key();
const hour = 3_600_000;

beforeAll(async () => {
  app = await createTestApp({ auth: { lockout: { max_failures: 3 } } });
  await createOpsRole(app);
});
afterAll(() => app.close());

async function opsUser(name: string): Promise<TestUser> {
  const user = await inviteUser(app, name, { roles: ['ops'] });
  await app.services.users.update({ name, traits: { logins: [name] } }, 'test');
  return user;
}

const events = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 100 * hour), limit: 500 })
  ).events.filter((event) => event.code === code);

describe('POST ssh/certs', () => {
  it('issues a certificate OpenSSH reads: key id, principals, extensions, host signers', async () => {
    const alice = await opsUser('alice');
    const res = await requestCertificate(app, alice, key.publicKey);
    expect(res.statusCode, res.body).toBe(200);
    const body = sshCertsResponseSchema.parse(res.json());
    expect(body).toMatchObject({
      cluster_name: 'test-cluster',
      ssh_proxy_addr: 'proxy.test:3023',
      host_signers: [expect.stringMatching(/^@cert-authority \* ssh-ed25519 \S+ postern-host-ca$/)],
    });
    expect(body.cert).toMatch(/^ssh-ed25519-cert-v01@openssh\.com /);
    const description = await describeCertificate(body.cert);
    expect(description).toContain('Key ID: "alice"');
    expect(principalsOf(description)).toEqual(['alice', 'root', 'ubuntu']);
    expect(description).toContain('permit-agent-forwarding');
    expect(description).not.toContain('permit-port-forwarding');
    expect(description).toContain('postern-roles@postern.dev');
    expect(await events('TC000I')).toContainEqual(
      expect.objectContaining({ user: 'alice', cert_type: 'user' }),
    );
    expect(await events('T1000I')).toContainEqual(
      expect.objectContaining({ user: 'alice', method: 'password+otp' }),
    );
  });

  it("lives the roles' max_session_ttl by default, and no longer when asked for more", async () => {
    const bob = await opsUser('bob');
    const lifetime = (cert: string) => {
      const parsed = parseCertificate(cert);
      return parsed.validBefore.getTime() - parsed.validAfter.getTime() - 60_000;
    };
    const byDefault = (await requestCertificate(app, bob, key.publicKey)).json();
    expect(byDefault.ttl_ms).toBe(2 * hour);
    expect(lifetime(byDefault.cert)).toBe(2 * hour);
    const tooLong = (await requestCertificate(app, bob, key.publicKey, { ttl: 10 * hour })).json();
    expect(tooLong.ttl_ms).toBe(2 * hour);
    const shorter = (await requestCertificate(app, bob, key.publicKey, { ttl: hour / 2 })).json();
    expect(shorter.ttl_ms).toBe(hour / 2);
    expect(lifetime(shorter.cert)).toBe(hour / 2);
  });

  it('refuses a wrong password or code as invalid credentials, and counts toward the lockout', async () => {
    const carol = await opsUser('carol');
    const wrongPassword = await requestCertificate(app, carol, key.publicKey, {
      password: Buffer.from('not my password').toString('base64'),
    });
    expect(wrongPassword.statusCode).toBe(403);
    expect(wrongPassword.json().error.message).toBe('invalid credentials');
    const wrongCode = await requestCertificate(app, carol, key.publicKey, { otp_token: '000000' });
    expect(wrongCode.statusCode).toBe(403);
    expect(wrongCode.json().error.message).toBe('invalid credentials');
    const noCode = await requestCertificate(app, carol, key.publicKey, { otp_token: undefined });
    // The failure that locks the account answers like the others: the lock is told only to
    // someone with the password and the code.
    expect(noCode.statusCode).toBe(403);
    expect(noCode.json().error.message).toBe('invalid credentials');
    const evenRight = await requestCertificate(app, carol, key.publicKey);
    expect(evenRight.statusCode).toBe(403);
    expect(evenRight.json().error.message).toMatch(/locked/);
    expect((await events('T1000W')).filter((event) => event.user === 'carol')).not.toHaveLength(0);
    expect((await events('TC000I')).some((event) => event.user === 'carol')).toBe(false);
  });

  it('answers an unknown user exactly as a wrong password', async () => {
    const ghost = { name: 'ghost', password: 'whatever it is', totpSecret: 'JBSWY3DPEHPK3PXP' };
    const res = await requestCertificate(app, ghost as TestUser, key.publicKey);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('invalid credentials');
  });

  it('refuses a user under a lock, after the password', async () => {
    const dave = await opsUser('dave');
    await app.services.locks.create(
      { targets: { user: 'dave' }, message: 'incident 42' },
      hostActor('test'),
    );
    await vi.waitFor(() => expect(app.services.lockWatcher.isLocked({ user: 'dave' })).toBe(true));
    const res = await requestCertificate(app, dave, key.publicKey);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('your account is locked: incident 42');
  });

  it('refuses a malformed or non-Ed25519 key with 400, before checking the password', async () => {
    const erin = await opsUser('erin');
    const rsa = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== erin@laptop';
    for (const pubKey of ['not a key', rsa, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==']) {
      const res = await requestCertificate(app, erin, pubKey);
      expect(res.statusCode, pubKey).toBe(400);
      expect(res.json().error.message).toMatch(/pub_key/);
    }
    expect((await events('T1000W')).some((event) => event.user === 'erin')).toBe(false);
  });

  it('is rate limited per address like the sign-in calls', async () => {
    const limited = await createTestApp({ auth: { login_rate_limit: 2 } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await limited.server.inject({
          method: 'POST',
          url: '/v1/webapi/ssh/certs',
          payload: { user: 'x', password: '', pub_key: key.publicKey },
        });
        codes.push(res.statusCode);
      }
      expect(codes).toEqual([403, 403, 429]);
    } finally {
      await limited.close();
    }
  });
});
