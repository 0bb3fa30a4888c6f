import { encodeEnvelope, terminalMessageTypes as T } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { readServerFrame, readSessionAnswer } from './serverFrames';

// The server's frames as TtyClient acts on them: each type read and checked, anything malformed
// either shown as an error or ignored, never thrown.
const frame = (type: (typeof T)[keyof typeof T], payload: string | Uint8Array) =>
  readServerFrame(encodeEnvelope(type, payload));

describe('readServerFrame', () => {
  it('hands output on as the bytes sent', () => {
    const bytes = new Uint8Array([0x68, 0xc3, 0xa9]);
    expect(frame(T.raw, bytes)).toEqual({ kind: 'output', body: bytes });
  });

  it('reads the session end reason, from JSON or plain text', () => {
    expect(frame(T.sessionEnd, JSON.stringify({ reason: 'locked: incident' }))).toEqual({
      kind: 'end',
      reason: 'locked: incident',
    });
    expect(frame(T.sessionEnd, '')).toEqual({ kind: 'end', reason: 'session ended' });
  });

  it('reads audit events, resume keys and errors; drops what does not match its schema', () => {
    const joined = { event: 'session.join', user: 'bob' };
    expect(frame(T.audit, JSON.stringify(joined))).toEqual({ kind: 'audit', event: joined });
    expect(frame(T.audit, 'not json')).toBeUndefined();
    const key = { sid: 's-1', key: 'k'.repeat(32), grace_ms: 60_000 };
    expect(frame(T.resumeKey, JSON.stringify(key))).toEqual({ kind: 'resumeKey', key });
    expect(frame(T.resumeKey, JSON.stringify({ sid: 's-1' }))).toBeUndefined();
    expect(frame(T.sessionData, JSON.stringify({ session: { sid: 42 } }))).toBeUndefined();
    expect(frame(T.error, 'resize refused')).toEqual({ kind: 'error', message: 'resize refused' });
  });

  it("reads a file transfer request's events as such; a malformed one stays a plain audit event", () => {
    const request = {
      event: 'file_transfer_request',
      requestId: 'req-1',
      requester: 'alice',
      location: '/tmp',
      filename: 'notes.txt',
      download: false,
      approvers: [],
    };
    expect(frame(T.audit, JSON.stringify(request))).toEqual({
      kind: 'fileTransfer',
      event: request,
    });
    const broken = { event: 'file_transfer_request_deny', requestId: 'req-1' };
    expect(frame(T.audit, JSON.stringify(broken))).toEqual({ kind: 'audit', event: broken });
  });

  it('turns an MFA challenge it cannot read into an error the user sees', () => {
    expect(frame(T.mfaChallenge, JSON.stringify({ totp_challenge: true }))).toEqual({
      kind: 'mfaChallenge',
      challenge: { totp_challenge: true },
    });
    expect(frame(T.mfaChallenge, '{}')).toEqual({
      kind: 'error',
      message: 'the proxy asked for an MFA check this page cannot read',
    });
  });

  it('reports a broken envelope as an error instead of throwing', () => {
    expect(readServerFrame(new Uint8Array([1, 2, 3, 4, 5, 6, 7]))).toEqual({
      kind: 'error',
      message: 'terminal frame: bad version',
    });
  });

  it('ignores types it does not act on', () => {
    expect(frame(T.latency, '{}')).toBeUndefined();
  });
});

describe('readSessionAnswer', () => {
  it('reads the answer to the first frame', () => {
    const answer = (body: object) =>
      readSessionAnswer(JSON.stringify({ type: 'create_session_response', ...body }));
    expect(answer({ status: 'ok', input_received: 12 })).toEqual({ kind: 'ok', inputReceived: 12 });
    expect(answer({ status: 'ok' })).toEqual({ kind: 'ok', inputReceived: 0 });
    expect(answer({ status: 'error', message: 'node is locked' })).toEqual({
      kind: 'refused',
      message: 'node is locked',
    });
    expect(answer({ status: 'error', message: '' })).toEqual({
      kind: 'refused',
      message: undefined,
    });
    expect(readSessionAnswer('{"type":"ping"}')).toEqual({ kind: 'other' });
    expect(readSessionAnswer('<html>')).toEqual({ kind: 'unreadable' });
  });
});
