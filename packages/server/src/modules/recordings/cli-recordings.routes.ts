import {
  apiPaths,
  auditSearchQuerySchema,
  recordingEventsQuerySchema,
  type AclVerb,
  type RecordingChunk,
  type RecordingInfo,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseInput } from '../../http/parse-input.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import type { AuditSearchService } from '../audit/audit-search.service.js';
import type { RecordingReader, RecordingsService } from './recordings.service.js';

interface CliRecordingsRoutesOptions {
  recordings: RecordingsService;
  search: AuditSearchService;
  certAuth: Pick<CertRequestAuth, 'identifyAllowed'>;
}

type SidRequest = FastifyRequest<{ Params: { sid: string } }>;

/**
 * `postern recordings ls` and `postern play` (docs/recordings.md): the console's recordings list
 * and the player's calls, signed with the user's certificate instead of a web session. The same
 * ACL (recordedSessions list / read), the same per-recording rules, and the same audit of each
 * opening. Public for the guard: the signature authenticates.
 */
export async function cliRecordingsRoutes(
  app: FastifyInstance,
  { recordings, search, certAuth }: CliRecordingsRoutesOptions,
) {
  const signer = async (request: FastifyRequest, verb: AclVerb): Promise<RecordingReader> => {
    const { user, roleSet } = await certAuth.identifyAllowed(request, 'recordedSessions', verb);
    return { actor: { name: user, roleSet }, ip: request.ip };
  };
  const signed = { config: { access: 'public' } } as const;

  app.get(apiPaths.cliRecordings, signed, async (request) => {
    const { actor } = await signer(request, 'list');
    return search.sessions(actor, parseInput(auditSearchQuerySchema, request.query));
  });

  app.get(
    apiPaths.patterns.cliRecordingInfo,
    signed,
    async (request: SidRequest): Promise<RecordingInfo> =>
      recordings.info(await signer(request, 'read'), request.params.sid),
  );

  app.get(
    apiPaths.patterns.cliRecordingEvents,
    signed,
    async (request: SidRequest): Promise<RecordingChunk> => {
      const reader = await signer(request, 'read');
      const query = parseInput(recordingEventsQuerySchema, request.query);
      return recordings.chunk(reader, request.params.sid, query);
    },
  );
}
