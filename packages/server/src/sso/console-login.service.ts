import { createHash, timingSafeEqual } from 'node:crypto';
import {
  ssoConsolePaths,
  type ConnectorKind,
  type SshCertsResponse,
  type SsoConsoleExchangeRequest,
  type SsoConsoleLoginRequest,
  type SsoConsoleLoginResponse,
} from '@postern/contracts';
import type { Clock } from '../clock.js';
import { accessDenied, notFound } from '../errors.js';
import type { RequestContext } from '../identity/auth/session-cookie.js';
import type { ConnectorsService } from '../access-control/connectors/connectors.service.js';
import { certifiableKey, type CertIssuer } from '../identity/cli-login/cert-issuer.js';
import type { UsersStore } from '../identity/users/users.store.js';
import type { OneTimeStore } from './one-time.store.js';
import { connectorKindLabels, type SsoOutcome } from './sso-flow.js';
import { SsoLoginError, type SsoIdentity, type SsoLoginService } from './sso-login.service.js';
import type { ConsoleRequest } from './sso-state.store.js';

/** As long as the CLI waits for the browser. */
export const consoleBeginTtlMs = 3 * 60_000;
/** The CLI trades the code at once; a minute covers a slow machine. */
export const consoleCodeTtlMs = 60_000;

/** A sign-in the CLI started, until a browser opens its link. */
export interface ConsoleBegin {
  kind: ConnectorKind;
  connector: string;
  request: ConsoleRequest;
}

/** What a code is good for: one certificate for this user and key, with the CLI's secret. */
export interface ConsoleCode {
  user: string;
  secretHash: string;
  pubKey: string;
  ttlMs?: number;
}

export interface ConsoleLoginDeps {
  connectors: ConnectorsService;
  login: SsoLoginService;
  begins: OneTimeStore<ConsoleBegin>;
  codes: OneTimeStore<ConsoleCode>;
  issuer: CertIssuer;
  users: UsersStore;
  publicBase: () => string;
  now: Clock;
}

/**
 * `postern login --auth NAME` (docs/cli-login.md): the CLI registers its key, its loopback
 * listener and the hash of a secret; the browser signs in at the provider with exactly the
 * console's checks; the proxy sends it back to the loopback with a one-time code instead of
 * setting a session; the CLI trades code and secret for a certificate. The code goes only to
 * a loopback address, so a link an attacker started and a victim follows ends on the victim's
 * own machine, and is useless without the secret anyway.
 */
export class ConsoleLoginService {
  constructor(private readonly deps: ConsoleLoginDeps) {}

  /** The CLI's first call: checks what it can now, and answers the link to open. */
  async start(kind: ConnectorKind, body: SsoConsoleLoginRequest): Promise<SsoConsoleLoginResponse> {
    const pubKey = certifiableKey(body.pub_key);
    const connector = await this.deps.connectors.forLogin(kind, body.connector_id);
    if (!connector || connector.kind !== kind) {
      const name = JSON.stringify(body.connector_id.slice(0, 64));
      throw notFound(`there is no ${connectorKindLabels[kind]} connector named ${name}`);
    }
    const request: ConsoleRequest = {
      redirect: body.redirect_url,
      secretHash: body.secret_hash,
      pubKey,
      ...(body.ttl === undefined ? {} : { ttlMs: body.ttl }),
    };
    const id = await this.deps.begins.create({ kind, connector: connector.metadata.name, request });
    return { redirect_url: this.deps.publicBase() + ssoConsolePaths.begin(kind, id) };
  }

  /** The browser opens the link, once; the flow then begins as the console's does. */
  async open(kind: ConnectorKind, id: string): Promise<ConsoleBegin> {
    const begin = await this.deps.begins.consume(id);
    if (!begin || begin.kind !== kind) {
      throw new SsoLoginError(
        'this sign-in link expired or was already used: run postern login again',
        'login',
      );
    }
    return begin;
  }

  /**
   * The sign-in succeeded: the same checks, SSO user and audit as the console's, but no session.
   * The user record lasts as long as the certificate the code can still buy.
   */
  async handOver(
    identity: SsoIdentity,
    request: ConsoleRequest,
    ctx: RequestContext,
  ): Promise<SsoOutcome> {
    const { username: user, roles } = identity;
    const lifetime = this.deps.issuer.lifetimeMs(user, roles, request.ttlMs);
    const until = new Date(this.deps.now() + this.deps.codes.ttlMs + lifetime);
    await this.deps.login.admit(identity, ctx, until);
    const code = await this.deps.codes.create({
      user,
      secretHash: request.secretHash,
      pubKey: request.pubKey,
      ...(request.ttlMs === undefined ? {} : { ttlMs: request.ttlMs }),
    });
    const location = new URL(request.redirect);
    location.searchParams.set('code', code);
    return { handedOver: location.toString() };
  }

  /**
   * The CLI's last call. The code is taken before the secret is compared, so a wrong secret
   * burns it: whoever saw the code gets one guess, and the real CLI simply logs in again.
   */
  async exchange(body: SsoConsoleExchangeRequest, ctx: RequestContext): Promise<SshCertsResponse> {
    const code = await this.deps.codes.consume(body.code);
    if (!code) {
      throw accessDenied('this sign-in code is unknown, expired or used already: log in again');
    }
    if (!sameHash(body.secret, code.secretHash)) {
      throw accessDenied('the secret does not match this sign-in: log in again');
    }
    // Removed (or replaced by a local user) since the sign-in: nothing to issue.
    const found = await this.deps.users.get(code.user);
    if (!found || found.user.spec.authType !== 'sso') {
      throw accessDenied('this user no longer exists');
    }
    return this.deps.issuer.issue({
      user: code.user,
      roles: found.user.spec.roles,
      publicKey: code.pubKey,
      requestedTtlMs: code.ttlMs,
      addr: ctx.addr,
    });
  }
}

function sameHash(secret: string, expectedHash: string): boolean {
  const given = createHash('sha256').update(secret).digest();
  const expected = Buffer.from(expectedHash, 'base64url');
  return expected.length === given.length && timingSafeEqual(given, expected);
}
