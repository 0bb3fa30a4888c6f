import {
  apiPaths,
  recordingChunkSchema,
  recordingInfoSchema,
  sessionEventsResponseSchema,
  type RecordingChunk,
  type RecordingInfo,
  type SessionEventsResponse,
} from '@postern/contracts';
import { signedClient } from '../login/signed-client.js';

/** What `postern recordings ls` and `postern play` ask the proxy, as the signed-in user. */
export interface RecordingsClient {
  /** One page of session ends between `from` and `to`, newest first. */
  list(from: Date, to: Date, startKey?: string): Promise<SessionEventsResponse>;
  info(sid: string): Promise<RecordingInfo>;
  /** The events from `offset` (bytes of the cast), and the offset to ask for next. */
  events(sid: string, offset: number): Promise<RecordingChunk>;
}

/** The recordings calls, each signed with the current login's certificate. */
export async function recordingsClient(env: NodeJS.ProcessEnv): Promise<RecordingsClient> {
  const { get } = await signedClient(env);
  return {
    list: (from, to, startKey) => {
      const query = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() });
      if (startKey) query.set('startKey', startKey);
      return get(`${apiPaths.cliRecordings}?${query}`, sessionEventsResponseSchema);
    },
    info: (sid) => get(apiPaths.cliRecordingInfo(sid), recordingInfoSchema),
    events: (sid, offset) =>
      get(`${apiPaths.cliRecordingEvents(sid)}?offset=${offset}`, recordingChunkSchema),
  };
}
