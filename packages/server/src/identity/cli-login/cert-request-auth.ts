import { verify } from 'node:crypto';
import type { AclArea, AclVerb } from '@postern/contracts';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { accessDenied, notAuthenticated } from '../../errors.js';
import {
  assumedRequestsOf,
  botInstanceOf,
  mfaDeviceOf,
  sessionMfaDeviceOf,
  plainAddress,
  POSTERN_LOGIN_ENDS_EXTENSION,
  POSTERN_SESSION_MFA_EXTENSION,
  POSTERN_SOURCE_IP_EXTENSION,
} from '../../ssh/ca.service.js';
import { parseCertificate, verifyCertificate } from '../../ssh/certificates.js';
import { ed25519PublicKeyObject } from '../../ssh/keys.js';
import {
  signedRequestHeaders,
  signedRequestNonce,
  signedRequestPayload,
} from '../../ssh/signed-request.js';
import { signedBodyDigest } from './signed-body.js';
import type { SignatureUses } from './signature-uses.js';
import type {
  AccessResolver,
  ResolvedAccess,
} from '../../access-control/access/access-resolver.js';
import { certificateCredential } from '../../access-control/access/credential-revocation.js';
import { lockMessage, type LockView } from '../../access-control/locks/lock-watcher.js';

/** How far a signed request's timestamp may be from our clock (either way). */
export const signedRequestSkewMs = 5 * 60_000;

export interface CertRequestAuthDeps {
  userCaPublicKeys: () => string[];
  access: Pick<AccessResolver, 'resolve' | 'users' | 'credentialRevoked'>;
  locks: LockView;
  now: Clock;
  /** Each signature once, cluster-wide. */
  uses: Pick<SignatureUses, 'claim'>;
}

/**
 * Who signed a request with a user certificate (ssh/signed-request.ts): a certificate of our
 * user CA, valid now, for a user who still exists and is not locked, and a signature by its
 * key over this very request (its body's bytes included), made recently and not used before.
 * Their access comes from their current record.
 */
export class CertRequestAuth {
  constructor(private readonly deps: CertRequestAuthDeps) {}

  /**
   * `identify`, then the check the guard makes of a web session's routes: `verb` on `area` in
   * the signer's ACL, or 403.
   */
  async identifyAllowed(request: FastifyRequest, area: AclArea, verb: AclVerb) {
    const identity = await this.identify(request);
    if (!identity.acl[area][verb]) {
      throw accessDenied(`access denied: ${verb} on ${area} is not allowed`);
    }
    return identity;
  }

  async identify(request: FastifyRequest): Promise<
    ResolvedAccess & {
      user: string;
      accessRequests: string[];
      /** When the signing certificate stops counting (ms): for a per-session MFA one, its login's. */
      expiresMs: number;
      /** A per-session MFA certificate's sessions (`db:<name>`, …); absent on a login's. */
      sessionMfaTargets?: string[];
      /** The signing certificate's extensions (a bot's instance and generation, for one). */
      extensions: Record<string, string>;
      /** The MFA device its login was proven with: what it issues inherits it. */
      mfaDevice?: string;
      /** On a per-session MFA certificate: the device that answered its check. */
      sessionMfaDevice?: string;
      /** On a bot's certificate: its instance (a `bot_instance` lock names it). */
      botInstance?: string;
    }
  > {
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : '';
    };
    const timestamp = header(signedRequestHeaders.timestamp);
    const signature = Buffer.from(header(signedRequestHeaders.signature), 'base64');
    const now = this.deps.now();
    if (!/^\d{1,16}$/.test(timestamp) || Math.abs(Number(timestamp) - now) > signedRequestSkewMs) {
      throw notAuthenticated('the request is not signed, or its time is off: check the clock');
    }
    let cert;
    try {
      cert = parseCertificate(Buffer.from(header(signedRequestHeaders.certificate), 'base64'));
    } catch {
      throw notAuthenticated('the request carries no valid certificate: run postern login');
    }
    const verdict = verifyCertificate(cert, {
      caPublicKeys: this.deps.userCaPublicKeys(),
      type: 'user',
      now: new Date(now),
    });
    if (!verdict.ok) throw notAuthenticated(`${verdict.reason}: run postern login`);
    const contentSha256 = header(signedRequestHeaders.contentSha256);
    const nonce = header(signedRequestHeaders.nonce);
    if (!contentSha256 || !signedRequestNonce.test(nonce)) {
      throw notAuthenticated('the request is signed the old way: update the postern client');
    }
    if (contentSha256 !== signedBodyDigest(request)) {
      throw notAuthenticated('the request body is not the one that was signed');
    }
    const payload = signedRequestPayload(
      request.method,
      request.url,
      timestamp,
      contentSha256,
      nonce,
    );
    if (!signedBy(cert.publicKeyBlob, payload, signature)) {
      throw notAuthenticated('the request signature is invalid');
    }
    const user = cert.keyId;
    // A user removed since the certificate was issued keeps no access.
    if (!this.deps.access.users.get(user)) throw notAuthenticated('this user no longer exists');
    // A password change (or a reset) since the certificate was issued: it no longer counts.
    const revoked = this.deps.access.credentialRevoked(
      user,
      certificateCredential(cert.validAfter),
    );
    if (revoked) throw notAuthenticated(`${revoked}: run postern login`);
    const accessRequests = assumedRequestsOf(cert.extensions);
    const resolved = this.deps.access.resolve(user, [], accessRequests);
    const mfaDevice = mfaDeviceOf(cert.extensions);
    // A per-session MFA certificate (a tunnel's) also stands on the device that answered it.
    const sessionMfaDevice = sessionMfaDeviceOf(cert.extensions);
    const roles = resolved.roles;
    const botInstance = botInstanceOf(cert.extensions);
    const marks = { mfaDevice, sessionMfaDevice, accessRequests, botInstance };
    const lock = this.deps.locks.lockFor({ user, roles, ...marks });
    if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
    const options = resolved.roleSet.options();
    // pin_source_ip: a pinned certificate works only from its address; and while the roles
    // ask for pinning, an unpinned one (issued before) does not work at all.
    const pinned = cert.extensions[POSTERN_SOURCE_IP_EXTENSION];
    const from = plainAddress(request.ip);
    if (pinned && pinned !== from) {
      throw notAuthenticated(
        `this certificate is pinned to ${pinned} (pin_source_ip); you connect from ${from}`,
      );
    }
    if (!pinned && options.pinSourceIp) {
      throw notAuthenticated(
        'your roles pin certificates to your address (pin_source_ip): run postern login',
      );
    }
    // Last, so only a request that passed everything else uses its signature up.
    if (!(await this.deps.uses.claim(signature, Number(timestamp) + signedRequestSkewMs))) {
      throw notAuthenticated('this signed request was already used: sign a new one');
    }
    // A per-session MFA certificate lives a minute; what it opens lasts as the login behind it.
    const mfaTargets = cert.extensions[POSTERN_SESSION_MFA_EXTENSION];
    const loginEnds = Date.parse(cert.extensions[POSTERN_LOGIN_ENDS_EXTENSION] ?? '');
    return {
      ...resolved,
      user,
      accessRequests,
      expiresMs: mfaTargets && !Number.isNaN(loginEnds) ? loginEnds : cert.validBefore.getTime(),
      extensions: cert.extensions,
      ...(mfaTargets ? { sessionMfaTargets: mfaTargets.split(',') } : {}),
      ...(mfaDevice ? { mfaDevice } : {}),
      ...(sessionMfaDevice ? { sessionMfaDevice } : {}),
      ...(botInstance ? { botInstance } : {}),
    };
  }
}

function signedBy(publicKeyBlob: Buffer, payload: Buffer, signature: Buffer): boolean {
  try {
    return verify(null, payload, ed25519PublicKeyObject(publicKeyBlob), signature);
  } catch {
    return false;
  }
}
