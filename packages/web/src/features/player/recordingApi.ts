import {
  apiPaths,
  desktopRecordingInfoSchema,
  recordingChunkSchema,
  recordingInfoSchema,
  type DesktopRecordingInfo,
  type RecordingChunk,
  type RecordingInfo,
} from '@postern/contracts';
import { api, decode } from '../../api';
import type { ChunkQuery } from './playbackTypes';

/** `GET .../recording/info`: what the player needs before the first event. */
export async function fetchRecordingInfo(
  clusterId: string,
  sid: string,
  signal?: AbortSignal,
): Promise<RecordingInfo> {
  const url = apiPaths.sessionRecordingInfo(clusterId, sid);
  return decode(recordingInfoSchema, await api.get(url, { signal }), url);
}

/** `GET .../recording/events?at=` (seek) or `?offset=` (continue): one chunk of events. */
export async function fetchRecordingChunk(
  clusterId: string,
  sid: string,
  query: ChunkQuery,
  signal?: AbortSignal,
): Promise<RecordingChunk> {
  const params = new URLSearchParams(
    'at' in query ? { at: String(query.at) } : { offset: String(query.offset) },
  );
  const url = `${apiPaths.sessionRecordingEvents(clusterId, sid)}?${params}`;
  return decode(recordingChunkSchema, await api.get(url, { signal }), url);
}

/** The plain asciicast, fetched with the bearer header (a link could not send it). */
export async function fetchCastFile(clusterId: string, sid: string): Promise<Blob> {
  return api.getBlob(`${apiPaths.sessionRecording(clusterId, sid)}?format=cast`);
}

/** `GET .../desktopplayback/:sid`: a desktop recording's size, length and keyframes. */
export async function fetchDesktopRecordingInfo(
  clusterId: string,
  sid: string,
  signal?: AbortSignal,
): Promise<DesktopRecordingInfo> {
  const url = apiPaths.desktopRecordingInfo(clusterId, sid);
  return decode(desktopRecordingInfoSchema, await api.get(url, { signal }), url);
}
