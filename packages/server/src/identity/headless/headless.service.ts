import { randomBytes } from 'node:crypto';
import type {
  HeadlessAction,
  HeadlessLoginRequest,
  HeadlessLoginResponse,
  HeadlessRequestView,
  HeadlessWaitResponse,
  MfaChallenge,
  WebauthnAssertion,
} from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { ApiError, accessDenied, badParameter, notFound } from '../../errors.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { AuditStore } from '../../modules/audit/index.js';
import type { RequestContext } from '../auth/session-cookie.js';
import { SecondFactorRejected, type SecondFactorService } from '../mfa/second-factor.service.js';
import { certifiableKey, type CertIssuer } from '../cli-login/cert-issuer.js';
import { lockedError, type LockoutService } from '../users/lockout.service.js';
import type { UsersStore } from '../users/users.store.js';
import type { HeadlessRequest, HeadlessStore, StoredHeadlessRequest } from './headless.store.js';

/** How long a request waits for its approval. */
export const headlessRequestTtlMs = 3 * 60_000;

export interface HeadlessDeps {
  store: HeadlessStore;
  users: UsersStore;
  secondFactor: SecondFactorService;
  lockout: LockoutService;
  issuer: CertIssuer;
  audit: AuditStore;
  /** `https://public_addr`, for the approval link. */
  publicUrl: () => string;
  now: Clock;
}

const missing = () => notFound('this headless login request is not found');
const expired = () =>
  accessDenied('this headless login request expired: run postern login --headless again');

/**
 * Headless login (docs/cli-login.md): a CLI on a machine without a browser registers its key,
 * the user approves it on `/web/headless/<id>` with a hardware key or passkey, and the CLI
 * collects a certificate once. The request id lets the CLI poll; only the user's own signed-in
 * browser, with a fresh WebAuthn assertion bound to this request, can approve it.
 */
export class HeadlessService {
  constructor(private readonly deps: HeadlessDeps) {}

  async create(body: HeadlessLoginRequest, ctx: RequestContext): Promise<HeadlessLoginResponse> {
    const publicKey = certifiableKey(body.pub_key);
    const now = this.deps.now();
    const request: HeadlessRequest = {
      id: randomBytes(16).toString('hex'),
      user: body.user,
      clientIp: ctx.addr ?? '',
      publicKey,
      ...(body.ttl === undefined ? {} : { requestedTtlMs: body.ttl }),
      state: 'pending',
      created: new Date(now).toISOString(),
      expires: new Date(now + headlessRequestTtlMs).toISOString(),
    };
    // Made whether or not the user exists, so the answer tells nobody which names do.
    if (!(await this.deps.store.create(request))) throw new Error('headless request id collision');
    await emitAudit(this.deps.audit, 'TPOS014I', {
      user: request.user,
      client_ip_address: request.clientIp,
    });
    return {
      request_id: request.id,
      url: `${this.deps.publicUrl()}/web/headless/${request.id}`,
      expires: request.expires,
    };
  }

  /** The approving user's view; another user's request is "not found". */
  async view(id: string, user: string): Promise<HeadlessRequestView> {
    const { request } = await this.own(id, user);
    return {
      client_ip_address: request.clientIp,
      user: request.user,
      state: request.state,
      created: request.created,
      expires: request.expires,
    };
  }

  /** The WebAuthn challenge that approves this request, and only it. */
  async challenge(id: string, user: string): Promise<MfaChallenge> {
    await this.pending(id, user);
    const credentials = await this.deps.users.credentials(user);
    const challenge = await this.deps.secondFactor.challengeFor(user, credentials, 'headless', id);
    if (!challenge.webauthn_challenge) {
      throw badParameter('approving a headless login needs a hardware key or a passkey');
    }
    return { webauthn_challenge: challenge.webauthn_challenge, totp_challenge: false };
  }

  async answer(
    id: string,
    user: string,
    body: { action: HeadlessAction; webauthnAssertionResponse?: WebauthnAssertion | undefined },
    ctx: RequestContext,
  ): Promise<void> {
    const stored = await this.pending(id, user);
    const mfaDevice =
      body.action === 'accept'
        ? await this.proveKey(id, user, body.webauthnAssertionResponse, ctx)
        : undefined;
    const state = body.action === 'accept' ? 'approved' : 'denied';
    const answered: HeadlessRequest = {
      ...stored.request,
      state,
      ...(mfaDevice ? { mfaDevice } : {}),
    };
    if (!(await this.deps.store.replace(stored, answered))) {
      throw new ApiError('compare_failed', 'this headless login request was answered already');
    }
    await emitAudit(this.deps.audit, state === 'approved' ? 'TPOS015I' : 'TPOS015W', {
      user,
      client_ip_address: stored.request.clientIp,
      ...remoteAddr(ctx.addr),
    });
  }

  /** The CLI's poll: the state, and once approved the certificate, which is handed out once. */
  async wait(id: string, ctx: RequestContext): Promise<HeadlessWaitResponse> {
    const stored = await this.deps.store.get(id);
    if (!stored) throw missing();
    const { request } = stored;
    if (request.state === 'denied') return { state: 'denied' };
    if (request.state === 'pending') {
      if (this.isExpired(request)) throw expired();
      return { state: 'pending' };
    }
    if (!(await this.deps.store.take(stored))) throw missing();
    // Removed since approving it: nothing to issue.
    const found = await this.deps.users.get(request.user);
    if (!found) throw accessDenied('this user no longer exists');
    const certificate = await this.deps.issuer.issue({
      user: request.user,
      roles: found.user.spec.roles,
      publicKey: request.publicKey,
      requestedTtlMs: request.requestedTtlMs,
      addr: ctx.addr,
      mfaDevice: request.mfaDevice,
    });
    return { state: 'approved', certificate };
  }

  private async own(id: string, user: string): Promise<StoredHeadlessRequest> {
    const stored = await this.deps.store.get(id);
    // Someone else's request is reported as missing, so ids cannot be probed.
    if (!stored || stored.request.user !== user) throw missing();
    return stored;
  }

  private async pending(id: string, user: string): Promise<StoredHeadlessRequest> {
    const stored = await this.own(id, user);
    if (stored.request.state !== 'pending') {
      throw new ApiError(
        'compare_failed',
        `this headless login request was ${stored.request.state} already`,
      );
    }
    if (this.isExpired(stored.request)) throw expired();
    return stored;
  }

  /** A failed assertion counts toward the lockout, as a failed sign-in does. Returns the key's id. */
  private async proveKey(
    id: string,
    user: string,
    assertion: WebauthnAssertion | undefined,
    ctx: RequestContext,
  ): Promise<string> {
    if (!assertion) throw badParameter('approving needs webauthnAssertionResponse');
    try {
      const expected = { user, purposes: ['headless' as const], subject: id };
      const { device } = await this.deps.secondFactor.verifyAssertion(
        assertion,
        expected,
        ctx.origin,
      );
      return device.id;
    } catch (error) {
      if (!(error instanceof SecondFactorRejected)) throw error;
      const lockedUntil = await this.deps.lockout.recordFailure(user, ctx.addr);
      if (lockedUntil) throw lockedError(lockedUntil);
      throw accessDenied(error.message);
    }
  }

  private isExpired(request: HeadlessRequest): boolean {
    return Date.parse(request.expires) <= this.deps.now();
  }
}
