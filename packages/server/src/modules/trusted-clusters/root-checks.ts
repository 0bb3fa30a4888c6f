import {
  decodeEnvelopeBytes,
  encodeEnvelope,
  sessionMfaResponseSchema,
  terminalMessageTypes as T,
  type MfaChallenge,
  type SessionMfaResponse,
} from '@postern/contracts';
import type { RawData } from 'ws';
import { ApiError } from '../../errors.js';
import type { SessionMfa } from '../../identity/mfa/session-mfa.js';
import type { ClusterKey } from './cluster-keys.js';
import { signRootAssertion } from './forwarded-identity.js';

/** The root's side of one leaf check for one user: its challenge, and its signed word. */
export interface RootCheck {
  challenge(nonce: string): Promise<MfaChallenge>;
  /** The assertion for the leaf once the user's answer checks out; throws when it does not. */
  answer(nonce: string, response: SessionMfaResponse): Promise<string>;
}

/**
 * `user`'s checks for `leaf`, with this cluster's devices: the challenge is bound to the leaf's
 * nonce (a key's answer to it opens nothing else), and only an answer that checks out gets the
 * assertion, signed with the key the leaf knows this root by.
 */
export function rootCheckFor(
  user: string,
  leaf: string,
  deps: {
    sessionMfa: Pick<SessionMfa, 'challenge' | 'verify'>;
    origin: string | undefined;
    rootName: string;
    identityKey: () => Promise<ClusterKey>;
  },
): RootCheck {
  const subject = (nonce: string) => `leaf ${leaf} ${nonce}`;
  return {
    challenge: (nonce) => deps.sessionMfa.challenge(user, subject(nonce)),
    async answer(nonce, response) {
      await deps.sessionMfa.verify(user, subject(nonce), response, deps.origin);
      const { privateKey } = await deps.identityKey();
      const claims = { user, check: nonce };
      return signRootAssertion(claims, { key: privateKey, root: deps.rootName, leaf });
    },
  };
}

/**
 * Per-session MFA on a console socket the root relays to a leaf (leaf-socket-relay.ts): the
 * leaf's challenge for a root user is a nonce (`root_check`); the root asks its user instead,
 * checks the answer with its own devices, and sends the leaf its signed assertion for that
 * nonce. Every other message passes as it was.
 */
export class RelayedChecks {
  private nonce: string | undefined;

  constructor(
    private readonly check: RootCheck,
    private readonly sides: {
      toClient(frame: Uint8Array): void;
      toLeaf(frame: Uint8Array): void;
      fail(reason: string): void;
    },
  ) {}

  /** True when the leaf's message was its check for the user, taken here. */
  fromLeaf(data: RawData, binary: boolean): boolean {
    const nonce = mfaFrame(data, binary)?.root_check;
    if (typeof nonce !== 'string') return false;
    this.nonce = nonce;
    this.check.challenge(nonce).then(
      (challenge) => this.sides.toClient(encodeEnvelope(T.mfaChallenge, JSON.stringify(challenge))),
      (error: unknown) => this.sides.fail(reasonOf(error)),
    );
    return true;
  }

  /** True when the client's message was the answer to a check this side asked, taken here. */
  fromClient(data: RawData, binary: boolean): boolean {
    const nonce = this.nonce;
    const frame = nonce === undefined ? undefined : mfaFrame(data, binary);
    if (!nonce || !frame) return false;
    this.nonce = undefined;
    const response = sessionMfaResponseSchema.safeParse(frame);
    if (!response.success || 'root_assertion' in response.data) {
      this.sides.fail('the MFA answer is not a key assertion or a code');
      return true;
    }
    this.check.answer(nonce, response.data).then(
      (assertion) => {
        const body = JSON.stringify({ root_assertion: assertion });
        this.sides.toLeaf(encodeEnvelope(T.mfaChallenge, body));
      },
      (error: unknown) => this.sides.fail(reasonOf(error)),
    );
    return true;
  }
}

/** Where an envelope keeps its type: the one byte read of every frame that passes. */
const typeAt = 5;
const mfaType = T.mfaChallenge.charCodeAt(0);

/**
 * The JSON body of an `n` (MFA) frame, or undefined for any other message. Every frame of a
 * relayed socket passes here, terminal output and desktop streams alike, so anything else is
 * told by one byte, without decoding, copying or throwing.
 */
function mfaFrame(data: RawData, binary: boolean): Record<string, unknown> | undefined {
  if (!binary || !Buffer.isBuffer(data) || data[typeAt] !== mfaType) return undefined;
  try {
    const frame = decodeEnvelopeBytes(data);
    if (frame.type !== T.mfaChallenge) return undefined;
    const value: unknown = JSON.parse(Buffer.from(frame.body).toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const reasonOf = (error: unknown) =>
  error instanceof ApiError ? error.message : 'the MFA check for this session failed';
