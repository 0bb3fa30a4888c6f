import {
  decodeEnvelopeBytes,
  encodeEnvelope,
  terminalMessageTypes as T,
  type ActiveSessionJson,
  type FileTransferDecisionFrame,
  type FileTransferRequestFrame,
  type ParticipantMode,
} from '@postern/contracts';
import { X509Certificate } from 'node:crypto';
import { rootCertificates, type PeerCertificate } from 'node:tls';
import WebSocket, { type RawData } from 'ws';
import { ApiError } from '../../errors.js';
import type { LiveSession } from './live-session.js';
import type { EndKind, Party } from './party.js';
import { peerJoinPath, type PeerProofs } from './peer-proof.js';
import type { SessionTracker } from './session-tracker.store.js';
import { toBytes, truncateReason } from '../../websocket/frames.js';
import { keepAlive } from '../../websocket/keep-alive.js';

/** What a joiner uses of a session: one this proxy holds, or one another proxy holds. */
export type JoinedSession = Pick<
  LiveSession,
  | 'isEnded'
  | 'join'
  | 'input'
  | 'resize'
  | 'ack'
  | 'leave'
  | 'toTracker'
  | 'requestFileTransfer'
  | 'decideFileTransfer'
>;

export interface RemoteSessionDeps {
  /** The session's tracker, naming the proxy that holds it and where that proxy is reached. */
  tracker: SessionTracker & { proxyAddr: string };
  /** The current tracker, as the watch has it. */
  current: () => SessionTracker | undefined;
  proofs: PeerProofs;
  /** Who joins, as this proxy judged them. */
  joiner: { user: string; roles: readonly string[]; mode: ParticipantMode };
  connectTimeoutMs?: number;
  /** How often this side pings the holder: a holder gone without closing ends the party. */
  pingIntervalMs?: number;
}

const decoder = new TextDecoder();

/**
 * A live session held by another proxy, joined through it: one WebSocket to that proxy's
 * internal join route (peer-proof.ts proves it) per party, carrying the terminal envelope both
 * ways. That proxy's session judges the party (locks, moderation, who may type or resize); this
 * side hands its frames to the local party and the local party's keystrokes, acks and resizes
 * back, so the joiner's client sees no difference.
 */
export class RemoteSession implements JoinedSession {
  private socket: WebSocket | undefined;
  private party: Party | undefined;
  private ended = false;
  private endReason: string | undefined;
  /** An `e` frame not passed on yet: if the end's reason follows, the party was revoked. */
  private pendingError: string | undefined;

  constructor(private readonly deps: RemoteSessionDeps) {}

  get id(): string {
    return this.deps.tracker.id;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  toTracker(): SessionTracker {
    return this.deps.current() ?? this.deps.tracker;
  }

  async join(party: Party): Promise<void> {
    this.party = party;
    const { tracker, joiner } = this.deps;
    const headers = await this.deps.proofs.sign({
      to: tracker.proxyId,
      sid: tracker.id,
      user: joiner.user,
      roles: [...joiner.roles],
      mode: joiner.mode,
      ...(party.mfaDevice ? { mfaDevice: party.mfaDevice } : {}),
      ...(party.sessionMfaDevice ? { sessionMfaDevice: party.sessionMfaDevice } : {}),
      ...(party.accessRequests?.length ? { accessRequests: [...party.accessRequests] } : {}),
      ...(party.botInstance ? { botInstance: party.botInstance } : {}),
    });
    if (this.ended) return;
    const url = new URL(peerJoinPath(tracker.id), tracker.proxyAddr.replace(/^http/, 'ws'));
    // The proof authenticates this side; the holder is authenticated by its certificate, pinned
    // to the one its tracker names (the name in it is the public address, not this internal
    // one): the proof is sent only over a connection to that very certificate's holder.
    const socket = new WebSocket(url, {
      headers,
      handshakeTimeout: this.deps.connectTimeoutMs ?? 10_000,
      ...pinnedTo(tracker.proxyCert),
    });
    this.socket = socket;
    // Failures are answered below (while connecting) or end the party (once closed).
    socket.on('error', () => undefined);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) this.fromHolder(toBytes(data));
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => {
          socket.terminate();
          reject(new ApiError('connection_problem', refusal(response.statusCode, body)));
        });
      });
      socket.once('error', (error) => {
        reject(
          new ApiError(
            'connection_problem',
            `the proxy holding this session cannot be reached: ${error.message}`,
          ),
        );
      });
    });
    const alive = keepAlive(socket, this.deps.pingIntervalMs ?? 20_000);
    socket.on('close', (code, reason) => {
      alive.stop();
      this.holderClosed(code, reason.toString('utf8'));
    });
    if (this.ended) socket.close(1000, 'disconnected');
  }

  input(_partyId: string, data: string | Uint8Array): void {
    this.send(encodeEnvelope(T.raw, typeof data === 'string' ? data : decoder.decode(data)));
  }

  resize(_partyId: string, w: number, h: number): void {
    this.send(encodeEnvelope(T.resize, JSON.stringify({ width: w, height: h })));
  }

  ack(_partyId: string, bytes: number): void {
    this.send(encodeEnvelope(T.outputAck, String(bytes)));
  }

  /** The holder's session decides: it knows the owner, the parties and the policy. */
  requestFileTransfer(_partyId: string, frame: FileTransferRequestFrame): void {
    this.send(encodeEnvelope(T.fileTransferRequest, JSON.stringify(frame)));
  }

  decideFileTransfer(_partyId: string, decision: FileTransferDecisionFrame): void {
    this.send(encodeEnvelope(T.fileTransferDecision, JSON.stringify(decision)));
  }

  /** This side leaves (or is made to): the holder hears the reason as the socket's close. */
  leave(_partyId: string, reason = 'left', kind: EndKind = 'ended'): void {
    if (this.ended) return;
    this.ended = true;
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.close(1000, truncateReason(reason));
    }
    this.party?.end(reason, kind);
  }

  private send(frame: Uint8Array): void {
    if (this.ended || this.socket?.readyState !== WebSocket.OPEN) return;
    this.socket.send(frame);
  }

  private fromHolder(frame: Uint8Array): void {
    const party = this.party;
    if (!party || this.ended) return;
    let decoded;
    try {
      decoded = decodeEnvelopeBytes(frame);
    } catch {
      return;
    }
    const text = () => decoder.decode(decoded.body);
    switch (decoded.type) {
      case T.raw:
        this.flushError();
        return party.output(decoded.body);
      case T.audit:
        this.flushError();
        return party.event(parse<Record<string, unknown>>(text()) ?? {});
      case T.sessionData: {
        this.flushError();
        const data = parse<{ session: ActiveSessionJson }>(text());
        if (data?.session) party.sessionData(data.session);
        return;
      }
      case T.error:
        this.flushError();
        this.pendingError = text();
        return;
      case T.sessionEnd:
        this.endReason = parse<{ reason: string }>(text())?.reason;
        return;
      default:
        return;
    }
  }

  private holderClosed(code: number, closeReason: string): void {
    if (this.ended) return;
    this.ended = true;
    const reason = this.endReason ?? (closeReason || 'the proxy holding this session went away');
    let kind: EndKind = code === 1001 ? 'shutdown' : 'ended';
    if (this.pendingError !== undefined && this.pendingError === this.endReason) {
      kind = 'revoked';
      this.pendingError = undefined;
    }
    this.flushError();
    this.party?.end(reason, kind);
  }

  private flushError(): void {
    if (this.pendingError === undefined) return;
    const message = this.pendingError;
    this.pendingError = undefined;
    this.party?.error?.(message);
  }
}

function refusal(status: number | undefined, body: string): string {
  const message = parse<{ error?: { message?: string } }>(body)?.error?.message;
  return `the proxy holding this session refused the join: ${message ?? `HTTP ${status ?? '?'}`}`;
}

function parse<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** TLS options that trust exactly the holder's certificate (self-signed or CA-issued). */
export function pinnedTo(certPem: string | undefined) {
  if (!certPem) return {};
  const fingerprint = new X509Certificate(certPem).fingerprint256;
  return {
    ca: [...rootCertificates, certPem],
    checkServerIdentity: (_host: string, cert: PeerCertificate) =>
      cert.fingerprint256 === fingerprint
        ? undefined
        : new Error('the proxy holding the session presented another certificate'),
  };
}
