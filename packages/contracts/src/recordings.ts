import { z } from 'zod';

/**
 * The Session Recordings list (spec §3 recording row, §4 description and playable), computed from
 * the session end events of `events/search/sessions`, so the server and the console agree. The
 * row's durationText is the console's to write (`formatDuration` in its lib/format, the same for
 * every duration it shows), from `duration`; so it is not here.
 */
export type RecordingType = 'ssh' | 'k8s' | 'desktop';

export interface RecordingRow {
  /** Milliseconds from session start to stop. */
  duration: number;
  sid: string;
  createdDate: Date;
  users: string;
  hostname: string;
  /** The OS login the session ran as ('' for desktops and events from older versions). */
  login: string;
  description: 'play' | 'non-interactive' | 'recording disabled';
  recordingType: RecordingType;
  playable: boolean;
}

/** The end event fields the row reads; events from other versions may lack any of them. */
export interface SessionEndEvent {
  event?: string;
  time?: string;
  sid?: string;
  user?: string;
  login?: string;
  participants?: string[];
  interactive?: boolean;
  session_recording?: 'on' | 'off';
  session_start?: string;
  session_stop?: string;
  server_hostname?: string;
  proto?: string;
  kubernetes_cluster?: string;
  /** Desktop sessions: */
  session_id?: string;
  desktop_name?: string;
  recorded?: boolean;
}

export function recordingRow(event: SessionEndEvent): RecordingRow {
  const start = Date.parse(event.session_start ?? event.time ?? '');
  const stop = Date.parse(event.session_stop ?? event.time ?? '');
  const duration = Number.isNaN(start) || Number.isNaN(stop) ? 0 : Math.max(0, stop - start);
  const common = {
    duration,
    createdDate: new Date(event.time ?? event.session_start ?? 0),
  };
  if (event.event === 'windows.desktop.session.end') {
    const recorded = event.recorded === true;
    return {
      ...common,
      sid: event.session_id ?? event.sid ?? '',
      users: event.user ?? '',
      hostname: event.desktop_name ?? 'N/A',
      login: '',
      description: recorded ? 'play' : 'recording disabled',
      recordingType: 'desktop',
      playable: recorded,
    };
  }
  const off = event.session_recording === 'off';
  const interactive = event.interactive === true;
  const kube = event.proto === 'kube';
  return {
    ...common,
    sid: event.sid ?? '',
    users: (event.participants ?? (event.user ? [event.user] : [])).join(', '),
    hostname: (kube ? event.kubernetes_cluster : event.server_hostname) || 'N/A',
    login: event.login ?? '',
    description: off ? 'recording disabled' : interactive ? 'play' : 'non-interactive',
    recordingType: kube ? 'k8s' : 'ssh',
    playable: !off && interactive,
  };
}

/**
 * A field that is dropped when it has an unexpected type: an event written by another version
 * still makes a row (with that cell blank) instead of failing the whole page.
 */
const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** One event of `events/search/sessions`, narrowed to what `recordingRow` reads. */
export const sessionEndEventSchema = z
  .object({
    event: lenient(z.string()),
    time: lenient(z.string()),
    sid: lenient(z.string()),
    user: lenient(z.string()),
    login: lenient(z.string()),
    participants: lenient(z.array(z.string())),
    interactive: lenient(z.boolean()),
    session_recording: lenient(z.enum(['on', 'off'])),
    session_start: lenient(z.string()),
    session_stop: lenient(z.string()),
    server_hostname: lenient(z.string()),
    proto: lenient(z.string()),
    kubernetes_cluster: lenient(z.string()),
    session_id: lenient(z.string()),
    desktop_name: lenient(z.string()),
    recorded: lenient(z.boolean()),
  })
  .catchall(z.unknown()) satisfies z.ZodType<SessionEndEvent>;

export const sessionEventsResponseSchema = z.object({
  events: z.array(sessionEndEventSchema),
  startKey: z.string(),
});
export type SessionEventsResponse = z.infer<typeof sessionEventsResponseSchema>;
