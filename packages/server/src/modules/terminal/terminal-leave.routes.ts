import { apiPaths, terminalLeaveRequestSchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { RelayLeave } from './peer-resume.js';
import type { SessionResumes } from './session-resumes.js';

interface TerminalLeaveRoutesOptions {
  resumes: SessionResumes;
  relayLeave: RelayLeave;
}

/**
 * `POST terminal/sessions/{sid}/leave` (docs/protocol.md §6.1): a tab closed while its terminal
 * was resuming cannot close a socket, so the console sends this as the page goes instead. With
 * the session's current key, the owner's party leaves now, on whichever proxy holds it, rather
 * than when the grace runs out. Signed in is all it asks beyond the key: the key is given only
 * to the session's owner, for this session, and the session is theirs to leave.
 */
export async function terminalLeaveRoutes(
  app: FastifyInstance,
  { resumes, relayLeave }: TerminalLeaveRoutesOptions,
) {
  app.post<{ Params: { sid: string } }>(
    apiPaths.patterns.terminalLeave,
    { config: { access: 'authenticated' } },
    async (request) => {
      const { key } = parseInput(terminalLeaveRequestSchema, request.body);
      const { sid } = request.params;
      const user = actorOf(request).name;
      const refusal = resumes.abandon(sid, user, key);
      if (!refusal) return {};
      if (refusal.holder) {
        const relayed = await relayLeave(refusal.holder, { user, addr: request.ip }, { sid, key });
        if (relayed === true) return {};
        throw notFound(`the session cannot be left: ${relayed}`);
      }
      throw notFound(`the session cannot be left: ${refusal.refused}`);
    },
  );
}
