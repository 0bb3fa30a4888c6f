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
import { webSessionMfaSubject, type SessionMfa } from '../../identity/mfa/session-mfa.js';
import type { ClusterKey } from './cluster-keys.js';
import { signRootAssertion } from './forwarded-identity.js';

/** The root's side of one leaf check for one user: its challenge, and its signed word. */
export interface RootCheck {
  challenge(nonce: string): Promise<MfaChallenge>;
  /** The assertion for the leaf once the user's answer checks out; throws when it does not. */
  answer(nonce: string, response: SessionMfaResponse): Promise<string>;
  /**
   * The same for a console call's check (`desktop:<name>`), which the user answered to this
   * root's challenge for their web session here: the word is for the leaf session's subject.
   */
  vouch(resource: string, response: SessionMfaResponse): Promise<string>;
}

/** How this root signs its word for a leaf: the key the leaf knows it by. */
export interface RootSigner {
  rootName: string;
  identityKey: () => Promise<ClusterKey>;
}

/** This root's word to `leaf` that `user` passed the check `check` (a nonce, or a subject). */
export async function rootWord(signer: RootSigner, leaf: string, user: string, check: string) {
  const { privateKey } = await signer.identityKey();
  return signRootAssertion({ user, check }, { key: privateKey, root: signer.rootName, leaf });
}

/**
 * `user`'s checks for `leaf`, with this cluster's devices: the challenge is bound to the leaf's
 * nonce (a key's answer to it opens nothing else), and only an answer that checks out gets the
 * assertion, signed with the key the leaf knows this root by.
 */
export function rootCheckFor(
  who: { user: string; rootSession: string; leafSession: string },
  leaf: string,
  deps: RootSigner & {
    sessionMfa: Pick<SessionMfa, 'challenge' | 'verify'>;
    origin: string | undefined;
  },
): RootCheck {
  const { user } = who;
  const subject = (nonce: string) => `leaf ${leaf} ${nonce}`;
  const sign = (check: string) => rootWord(deps, leaf, user, check);
  return {
    challenge: (nonce) => deps.sessionMfa.challenge(user, subject(nonce)),
    async answer(nonce, response) {
      await deps.sessionMfa.verify(user, subject(nonce), response, deps.origin);
      return sign(nonce);
    },
    async vouch(resource, response) {
      const here = webSessionMfaSubject(who.rootSession, resource);
      await deps.sessionMfa.verify(user, here, response, deps.origin);
      return sign(webSessionMfaSubject(who.leafSession, resource));
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

/** `sites/<leaf>/desktops/<name>/connect/ws`: the socket whose first frame may carry an answer. */
const desktopPath = /^\/v1\/webapi\/sites\/[^/?#]+\/desktops\/([^/?#]+)\/connect\/ws(?:[?#]|$)/;

/**
 * A desktop's first frame with the answer to this root's challenge for `desktop:<name>` (the
 * console asks for it on its own, then connects again): the answer is checked here, and the leaf
 * gets this root's word for its own subject in its place.
 */
export async function vouchedAnswer(
  url: string | undefined,
  answer: unknown,
  check: RootCheck,
): Promise<{ answer: { root_assertion: string } } | { refused: string }> {
  const name = desktopPath.exec(url ?? '')?.[1];
  const response = sessionMfaResponseSchema.safeParse(answer);
  if (!name || !response.success || 'root_assertion' in response.data) {
    return { refused: 'the MFA answer is not a key assertion or a code' };
  }
  try {
    const resource = `desktop:${decodeURIComponent(name)}`;
    return { answer: { root_assertion: await check.vouch(resource, response.data) } };
  } catch (error) {
    return { refused: reasonOf(error) };
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
