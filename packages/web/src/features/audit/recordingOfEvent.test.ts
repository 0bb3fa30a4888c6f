import { describe, expect, it } from 'vitest';
import { recordedSessionOf } from './recordingOfEvent';

const event = (fields: Record<string, unknown>) => ({
  code: 'T2000I',
  time: '2026-11-20T10:00:00Z',
  event: 'session.start',
  sid: 's1',
  proto: 'ssh',
  ...fields,
});

describe('recordedSessionOf', () => {
  it.each(['session.start', 'session.end', 'session.join', 'session.leave', 'resize'])(
    'a %s event of a terminal session links to its recording',
    (type) => expect(recordedSessionOf(event({ event: type }))).toBe('s1'),
  );

  it('a recording being opened links to it too', () => {
    expect(recordedSessionOf(event({ event: 'session.recording.access', proto: undefined }))).toBe(
      's1',
    );
  });

  it('commands without a terminal and unrecorded sessions have nothing to play', () => {
    expect(recordedSessionOf(event({ interactive: false }))).toBeUndefined();
    expect(
      recordedSessionOf(event({ event: 'session.end', session_recording: 'off' })),
    ).toBeUndefined();
  });

  it('events without a session, or outside one, link nowhere', () => {
    expect(recordedSessionOf(event({ sid: undefined }))).toBeUndefined();
    expect(recordedSessionOf(event({ event: 'session.rejected' }))).toBeUndefined();
    expect(recordedSessionOf(event({ event: 'exec' }))).toBeUndefined();
    expect(recordedSessionOf(event({ event: 'user.login' }))).toBeUndefined();
    expect(recordedSessionOf(event({ proto: 'kube' }))).toBeUndefined();
  });
});
