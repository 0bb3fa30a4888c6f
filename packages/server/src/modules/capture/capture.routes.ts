import { apiPaths, okBody } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../http/parse-input.js';

const captureSchema = z.object({
  event: z.string().min(1).max(64),
  path: z.string().max(2048).optional(),
});

/**
 * `POST capture`: the console's optional usage events (spec §7, fire and forget). They stay on
 * this server, written to the debug log; nothing is sent anywhere.
 */
export async function captureRoutes(app: FastifyInstance) {
  app.post(apiPaths.capture, { config: { access: 'authenticated' } }, async (request) => {
    const event = parseInput(captureSchema, request.body);
    request.log.debug({ capture: event, user: request.identity?.user }, 'console usage event');
    return okBody;
  });
}
