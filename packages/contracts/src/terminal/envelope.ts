/**
 * The terminal WebSocket's framing (reference §2.2; docs/protocol.md): every binary frame is a
 * protobuf `Envelope{version=1:"1", type=2:<one char>, payload=3:<utf-8 text>}` written at fixed
 * offsets, so neither side needs a protobuf library. Shared by the proxy, the console and the
 * benchmarks' headless client.
 */
export const terminalMessageTypes = {
  raw: 'r',
  resize: 'w',
  audit: 'a',
  sessionData: 's',
  sessionEnd: 'c',
  mfaChallenge: 'n',
  error: 'e',
  latency: 'l',
  sessionStatus: 'g',
  readyToJoin: 'j',
  /** Client→server: a moderated session's owner asks to move a file (`fileTransferRequestFrameSchema`). */
  fileTransferRequest: 'f',
  /** Client→server: a participant approves or denies one (`fileTransferDecisionFrameSchema`). */
  fileTransferDecision: 't',
  /**
   * Postern's addition (docs/protocol.md): the client acknowledges output it has written to the
   * terminal; the payload is the decimal count of raw payload bytes since its last ack.
   */
  outputAck: 'o',
  /**
   * Postern's addition (docs/protocol.md §6.1): the server gives the session's owner a key to
   * resume it over a new socket after the connection drops (`resumeKeySchema`).
   */
  resumeKey: 'k',
} as const;
export type TerminalMessageType = (typeof terminalMessageTypes)[keyof typeof terminalMessageTypes];

const knownTypes = new Set<string>(Object.values(terminalMessageTypes));

export interface TerminalEnvelope {
  type: TerminalMessageType;
  /** For `raw`, terminal bytes as UTF-8 text; JSON or plain text for the others. */
  payload: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** Encodes one frame; `payload` may already be UTF-8 bytes (the hot output path). */
export function encodeEnvelope(
  type: TerminalMessageType,
  payload: string | Uint8Array = '',
): Uint8Array {
  const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
  const lengthBytes = varintLength(body.length);
  const frame = new Uint8Array(7 + lengthBytes + body.length);
  frame.set([0x0a, 0x01, 0x31, 0x12, 0x01, type.charCodeAt(0), 0x1a]);
  let offset = 7;
  let n = body.length;
  while (n >= 0x80) {
    frame[offset++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  frame[offset++] = n;
  frame.set(body, offset);
  return frame;
}

/** The frame's type and its payload bytes, without copying; throws on a malformed frame. */
export function decodeEnvelopeBytes(frame: Uint8Array): {
  type: TerminalMessageType;
  body: Uint8Array;
} {
  if (frame.length < 6 || frame[0] !== 0x0a || frame[1] !== 0x01 || frame[2] !== 0x31) {
    throw new Error('terminal frame: bad version');
  }
  if (frame[3] !== 0x12 || frame[4] !== 0x01) throw new Error('terminal frame: bad type field');
  const type = String.fromCharCode(frame[5]!);
  if (!knownTypes.has(type))
    throw new Error(`terminal frame: unknown type ${JSON.stringify(type)}`);
  if (frame.length === 6) return { type: type as TerminalMessageType, body: new Uint8Array(0) };
  if (frame[6] !== 0x1a) throw new Error('terminal frame: bad payload field');
  let offset = 7;
  let length = 0;
  let shift = 1;
  for (;;) {
    if (offset >= frame.length || shift > 2 ** 28) throw new Error('terminal frame: bad length');
    const byte = frame[offset++]!;
    length += (byte & 0x7f) * shift;
    if (byte < 0x80) break;
    shift *= 128;
  }
  if (offset + length !== frame.length) throw new Error('terminal frame: length mismatch');
  return { type: type as TerminalMessageType, body: frame.subarray(offset) };
}

export function decodeEnvelope(frame: Uint8Array): TerminalEnvelope {
  const { type, body } = decodeEnvelopeBytes(frame);
  return { type, payload: decoder.decode(body) };
}

function varintLength(n: number): number {
  let bytes = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    bytes++;
  }
  return bytes;
}
