import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import {
  apiPaths,
  recordingChunkDefaultBytes,
  recordingChunkMaxBytes,
  recordingEventsQuerySchema,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { resolveClusterId } from '../../cluster-context.js';
import { notFound } from '../../errors.js';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import { may } from '../../access-control/access/actor.js';
import { emitAudit, remoteAddr } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import { readChunkAt, readChunkFrom, readRecordingInfo } from './playback.js';
import type { RecordingIndex, RecordingStore } from './recording-store.js';

interface RecordingsRoutesOptions {
  store: RecordingStore;
  audit: AuditStore;
  clusterName: string;
}

type RecordingRequest = FastifyRequest<{ Params: { clusterId: string; sid: string } }>;

const read = { config: { access: { area: 'recordedSessions', verb: 'read' } } } as const;

const downloadQuerySchema = z.object({ format: z.enum(['cast', 'cast.gz']).default('cast.gz') });

/**
 * Sealed recordings: download, and the player's info and event chunks (docs/recordings.md).
 * Opening one (a download, or the player's info) is audited as recording access (T2012I).
 */
export async function recordingsRoutes(
  app: FastifyInstance,
  { store, audit, clusterName }: RecordingsRoutesOptions,
) {
  /** The index of a recording this user may read; any other answers 404 (see below). */
  async function readableIndex(request: RecordingRequest): Promise<RecordingIndex> {
    resolveClusterId(request.params.clusterId, clusterName);
    const { sid } = request.params;
    const index = await store.readIndex(sid);
    // Rules may limit reads to sessions one took part in (the access preset); a recording one
    // may not read is reported like one that does not exist, so its existence does not leak.
    if (
      !index ||
      !may(actorOf(request), 'session', 'read', { sid, participants: index.participants })
    )
      throw notFound(`recording of session ${sid} is not found`);
    return index;
  }

  const audited = (request: RecordingRequest, format: string) =>
    emitAudit(audit, 'T2012I', {
      user: actorOf(request).name,
      sid: request.params.sid,
      format,
      ...remoteAddr(request.ip),
    });

  app.get(apiPaths.patterns.sessionRecording, read, async (request: RecordingRequest, reply) => {
    const { format } = parseInput(downloadQuerySchema, request.query);
    const index = await readableIndex(request);
    const cast = await store.openCast(index.sid);
    if (!cast) throw notFound(`recording of session ${index.sid} is not found`);
    await audited(request, format);
    reply.header('content-disposition', `attachment; filename="${index.sid}.${format}"`);
    if (format === 'cast.gz') return reply.type('application/gzip').send(cast);
    // Plain asciicast for `asciinema play`; a damaged file ends the response early.
    const plain = createGunzip();
    pipeline(cast, plain, () => undefined);
    return reply.type('application/x-asciicast').send(plain);
  });

  app.get(apiPaths.patterns.sessionRecordingInfo, read, async (request: RecordingRequest) => {
    const index = await readableIndex(request);
    await audited(request, 'player');
    return readRecordingInfo(store, index);
  });

  // Not audited: the player asks for many chunks of a recording its info call already audited.
  app.get(apiPaths.patterns.sessionRecordingEvents, read, async (request: RecordingRequest) => {
    const query = parseInput(recordingEventsQuerySchema, request.query);
    const index = await readableIndex(request);
    const bytes = Math.min(query.bytes ?? recordingChunkDefaultBytes, recordingChunkMaxBytes);
    return query.at !== undefined
      ? readChunkAt(store, index, query.at, bytes)
      : readChunkFrom(store, index, query.offset ?? 0, bytes);
  });
}
