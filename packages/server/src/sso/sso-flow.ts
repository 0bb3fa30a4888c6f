import { createHash, randomBytes } from 'node:crypto';
import type { Connector, ConnectorKind } from '@postern/contracts';
import type { RequestContext } from '../identity/auth/session-cookie.js';
import type { ConnectorsService } from '../access-control/connectors/connectors.service.js';
import type { WebSession } from '../identity/web-sessions/web-sessions.service.js';
import type { ConsoleRequest, SsoState, SsoStateStore } from './sso-state.store.js';
import { SsoLoginError, type SsoIdentity } from './sso-login.service.js';

/** What a provider sends back to the callback. */
export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

/**
 * How a sign-in ends: a web session and where to land (the console's), or the CLI's loopback
 * URL with a one-time code (`postern login --auth`, console-login.service.ts).
 */
export type SsoOutcome = { session: WebSession; redirect: string } | { handedOver: string };

/** Admits the mapped identity, ending the sign-in the state was started for. */
export type SsoLanding = (
  identity: SsoIdentity,
  state: SsoState,
  ctx: RequestContext,
) => Promise<SsoOutcome>;

/** A redirect-based sign-in: to the provider and back (OIDC, GitHub). */
export interface SsoFlow {
  /**
   * The provider's URL, and the state id the browser must carry back in a cookie; `cli`
   * when the CLI started it.
   */
  begin(
    connectorName: string,
    redirectUrl: string | undefined,
    cli?: ConsoleRequest,
  ): Promise<{ location: string; state: string }>;
  complete(
    query: CallbackQuery,
    stateCookie: string | undefined,
    ctx: RequestContext,
  ): Promise<SsoOutcome>;
}

export const randomToken = () => randomBytes(32).toString('base64url');

/** PKCE (RFC 7636): a verifier kept on the server and its S256 challenge for the provider. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomToken();
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * The sign-in state the provider's answer names. It must match the cookie set when the sign-in
 * started (so nobody can make a browser finish a sign-in it did not start: login CSRF) and
 * exist unused on the server (single use, short-lived: no replay). A provider's error is
 * reported only after that, so a forged error cannot be shown in someone else's browser.
 */
export async function takeState(
  states: SsoStateStore,
  kind: ConnectorKind,
  query: CallbackQuery,
  stateCookie: string | undefined,
): Promise<SsoState & { code: string; codeVerifier: string }> {
  if (!query.state || !stateCookie || query.state !== stateCookie) {
    throw new SsoLoginError('the sign-in response does not match this browser: start again');
  }
  const state = await states.consume(query.state);
  if (!state || state.kind !== kind || !state.codeVerifier) {
    throw new SsoLoginError('the sign-in expired or was already used: start again');
  }
  if (query.error) {
    const text = query.error_description
      ? `${query.error}: ${query.error_description}`
      : query.error;
    // eslint-disable-next-line no-control-regex
    const shown = text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200);
    throw new SsoLoginError(`the identity provider refused the sign-in: ${shown}`);
  }
  if (!query.code) throw new SsoLoginError('the identity provider sent no authorization code');
  return { ...state, codeVerifier: state.codeVerifier, code: query.code };
}

/** A sign-in that failed once its connector was known: the route audits it under that name. */
export class ConnectorFailure extends Error {
  constructor(
    readonly failure: unknown,
    readonly connector: string,
  ) {
    super(`sign-in through ${connector} failed`);
    this.name = 'ConnectorFailure';
  }
}

/** Runs the rest of a sign-in, tagging any failure with the connector's name. */
export async function forConnector<T>(connector: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new ConnectorFailure(error, connector);
  }
}

export const connectorKindLabels = { oidc: 'OIDC', github: 'GitHub', saml: 'SAML' } as const;

/** The connector a sign-in names, with its secrets; an unknown one fails at `stage`. */
export async function loginConnector<K extends ConnectorKind>(
  connectors: Pick<ConnectorsService, 'forLogin'>,
  kind: K,
  name: string,
  stage: 'login' | 'callback',
): Promise<Extract<Connector, { kind: K }>> {
  const connector = name ? await connectors.forLogin(kind, name) : null;
  if (!connector || connector.kind !== kind) {
    throw new SsoLoginError(
      `there is no ${connectorKindLabels[kind]} connector named ${JSON.stringify(name.slice(0, 64))}`,
      stage,
    );
  }
  return connector as Extract<Connector, { kind: K }>;
}
