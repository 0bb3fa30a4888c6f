import { apiPaths } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { notFound } from '../../errors.js';
import { actorOf } from '../../plugins/access-guard.js';
import { may } from '../access/actor.js';
import { emitAudit, remoteAddr } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import type { RecordingStore } from './recording-store.js';

interface RecordingsRoutesOptions {
  store: RecordingStore;
  audit: AuditStore;
  clusterName: string;
}

type RecordingParams = { Params: { clusterId: string; sid: string } };

/** Downloads of sealed recordings; every opening is audited (T2012I, reference code). */
export async function recordingsRoutes(
  app: FastifyInstance,
  { store, audit, clusterName }: RecordingsRoutesOptions,
) {
  app.get<RecordingParams>(
    apiPaths.patterns.sessionRecording,
    { config: { access: { area: 'recordedSessions', verb: 'read' } } },
    async (request, reply) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const { sid } = request.params;
      const actor = actorOf(request);
      const index = await store.readIndex(sid);
      // Rules may limit reads to sessions one took part in (the access preset); a recording one
      // may not read is reported like one that does not exist, so its existence does not leak.
      const allowed =
        index && may(actor, 'session', 'read', { sid, participants: index.participants });
      const cast = allowed ? await store.openCast(sid) : undefined;
      if (!cast) throw notFound(`recording of session ${sid} is not found`);
      await emitAudit(audit, 'T2012I', {
        user: actor.name,
        sid,
        format: 'cast.gz',
        ...remoteAddr(request.ip),
      });
      return reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="${sid}.cast.gz"`)
        .send(cast);
    },
  );
}
