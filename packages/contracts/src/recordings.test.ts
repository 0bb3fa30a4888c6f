import { describe, expect, it } from 'vitest';
import { recordingRow, sessionEventsResponseSchema } from './recordings.js';

const sshEnd = {
  event: 'session.end',
  time: '2026-01-02T03:04:10.000Z',
  sid: 's1',
  login: 'root',
  participants: ['alice', 'bob'],
  interactive: true,
  session_recording: 'on' as const,
  session_start: '2026-01-02T03:04:05.000Z',
  session_stop: '2026-01-02T03:06:05.000Z',
  server_hostname: 'web-1',
};

describe('recordingRow', () => {
  it('an interactive recorded SSH session is played', () => {
    expect(recordingRow(sshEnd)).toEqual({
      duration: 120_000,
      sid: 's1',
      createdDate: new Date('2026-01-02T03:04:10.000Z'),
      users: 'alice, bob',
      hostname: 'web-1',
      login: 'root',
      description: 'play',
      recordingType: 'ssh',
      playable: true,
    });
  });

  it('a command session is non-interactive and not playable', () => {
    const row = recordingRow({ ...sshEnd, interactive: false });
    expect(row).toMatchObject({ description: 'non-interactive', playable: false });
  });

  it('recording off wins over interactive', () => {
    const row = recordingRow({ ...sshEnd, session_recording: 'off' });
    expect(row).toMatchObject({ description: 'recording disabled', playable: false });
  });

  it('desktop sessions are playable when recorded', () => {
    const desktop = {
      event: 'windows.desktop.session.end',
      time: sshEnd.time,
      session_id: 'd1',
      user: 'carol',
      desktop_name: 'win-1',
      session_start: sshEnd.session_start,
      session_stop: sshEnd.session_start,
    };
    expect(recordingRow({ ...desktop, recorded: true })).toMatchObject({
      sid: 'd1',
      users: 'carol',
      hostname: 'win-1',
      recordingType: 'desktop',
      description: 'play',
      playable: true,
      duration: 0,
      login: '',
    });
    expect(recordingRow(desktop)).toMatchObject({
      description: 'recording disabled',
      playable: false,
    });
  });

  it('an event without a login (an older version) has an empty one', () => {
    expect(recordingRow({ ...sshEnd, login: undefined }).login).toBe('');
  });

  it('a missing hostname reads N/A', () => {
    expect(recordingRow({ ...sshEnd, server_hostname: undefined }).hostname).toBe('N/A');
  });
});

describe('sessionEventsResponseSchema', () => {
  it('keeps the fields a row reads and drops only those of an unexpected type', () => {
    const odd = { ...sshEnd, participants: 'alice', interactive: 'yes', extra: 1 };
    const { events, startKey } = sessionEventsResponseSchema.parse({
      events: [sshEnd, odd],
      startKey: 'k',
    });
    expect(startKey).toBe('k');
    expect(recordingRow(events[0]!)).toEqual(recordingRow(sshEnd));
    expect(events[1]).toMatchObject({ sid: 's1', server_hostname: 'web-1', extra: 1 });
    expect(events[1]!.participants).toBeUndefined();
    expect(recordingRow(events[1]!)).toMatchObject({ users: '', playable: false });
  });

  it('refuses a response that is not a page of events', () => {
    expect(sessionEventsResponseSchema.safeParse({ events: {} }).success).toBe(false);
  });
});
