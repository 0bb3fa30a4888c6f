import { createHash, randomBytes } from 'node:crypto';
import type { ConnectorKind } from '@postern/contracts';
import { CompareFailedError, NotFoundError, type Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';

/** Long enough to type a password and pass a second factor at the provider, no longer. */
export const stateTtlMs = 10 * 60 * 1000;
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
  expires: string;
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

/**
 * Sign-in states under the SHA-256 of their id, so reading the storage gives no usable state.
 * A state is consumed by deleting it at the revision read: of two callbacks with one state only
 * one gets it, which is the replay protection.
 */
export class SsoStateStore {
  constructor(
    private readonly backend: Backend,
    private readonly now: Clock,
  ) {}

  /** Stores the state and returns its id: 256 random bits, base64url. */
  async create(state: Omit<SsoState, 'expires'>): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const expires = new Date(this.now() + stateTtlMs);
    const value = JSON.stringify({ ...state, expires: expires.toISOString() });
    await this.backend.create({ key: keyOf(id), value, expires });
    return id;
  }

  /** The state, once: null when unknown, expired or already used. */
  async consume(id: string): Promise<SsoState | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const item = await this.backend.get(keyOf(id));
    if (!item) return null;
    try {
      await this.backend.delete(item.key, item.revision);
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof CompareFailedError) return null;
      throw error;
    }
    const state = JSON.parse(item.value) as SsoState;
    return Date.parse(state.expires) > this.now() ? state : null;
  }
}

const keyOf = (id: string) => prefix + createHash('sha256').update(id).digest('hex');
