import type { ConnectorKind } from '@postern/contracts';
import type { Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';
import { OneTimeStore } from './one-time.store.js';
import { stateTtlMs } from './sso-state-ttl.js';

const prefix = '/sso_states/';

/** What a sign-in started with, kept on the server until the provider sends the person back. */
export interface SsoState {
  kind: ConnectorKind;
  connector: string;
  /** The same-origin path to land on after the sign-in. */
  redirect: string;
  nonce?: string;
  /** PKCE: the verifier whose S256 challenge went to the provider. */
  codeVerifier?: string;
  /** Set when the CLI started the sign-in: it gets a code on its loopback, not a session. */
  console?: ConsoleRequest;
}

/** What `postern login --auth` asked for (console-login.service.ts). */
export interface ConsoleRequest {
  /** The CLI's loopback listener: `http://127.0.0.1:<port>/…`, checked when it was given. */
  redirect: string;
  /** base64url(SHA-256(secret)); the CLI shows the secret only at the exchange. */
  secretHash: string;
  /** The Ed25519 key to certify, one OpenSSH line. */
  pubKey: string;
  ttlMs?: number;
}

/** Sign-in states: single use, short-lived (one-time.store.ts has the rules). */
export class SsoStateStore extends OneTimeStore<SsoState> {
  constructor(backend: Backend, now: Clock) {
    super(backend, now, prefix, stateTtlMs);
  }
}
