import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { apiPaths, recordingEventsQuerySchema } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import type { RecordingReader, RecordingsService } from './recordings.service.js';

interface RecordingsRoutesOptions {
  recordings: RecordingsService;
  clusterName: string;
}

type RecordingRequest = FastifyRequest<{ Params: { clusterId: string; sid: string } }>;

const read = { config: { access: { area: 'recordedSessions', verb: 'read' } } } as const;

const downloadQuerySchema = z.object({ format: z.enum(['cast', 'cast.gz']).default('cast.gz') });

/** Sealed recordings: download, and the player's info and event chunks (docs/recordings.md). */
export async function recordingsRoutes(
  app: FastifyInstance,
  { recordings, clusterName }: RecordingsRoutesOptions,
) {
  const reader = (request: RecordingRequest): RecordingReader => {
    resolveClusterId(request.params.clusterId, clusterName);
    return { actor: actorOf(request), ip: request.ip };
  };

  app.get(apiPaths.patterns.sessionRecording, read, async (request: RecordingRequest, reply) => {
    const { format } = parseInput(downloadQuerySchema, request.query);
    const { sid } = request.params;
    const cast = await recordings.openDownload(reader(request), sid, format);
    reply.header('content-disposition', `attachment; filename="${sid}.${format}"`);
    if (format === 'cast.gz') return reply.type('application/gzip').send(cast);
    // Plain asciicast for `asciinema play`; a damaged file ends the response early.
    const plain = createGunzip();
    pipeline(cast, plain, () => undefined);
    return reply.type('application/x-asciicast').send(plain);
  });

  app.get(apiPaths.patterns.sessionRecordingInfo, read, async (request: RecordingRequest) =>
    recordings.info(reader(request), request.params.sid),
  );

  app.get(apiPaths.patterns.sessionRecordingEvents, read, async (request: RecordingRequest) => {
    const query = parseInput(recordingEventsQuerySchema, request.query);
    return recordings.chunk(reader(request), request.params.sid, query);
  });
}
