import { apiPaths, okBody } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../http/parse-input.js';

const captureSchema = z.object({
  event: z.string().min(1).max(64),
  path: z.string().max(2048).optional(),
});

export interface CaptureRoutesOptions {
  /** precapture takes anyone's events, so it is limited per address like the sign-in calls. */
  rateLimit: { max: number; timeWindow: number };
}

/**
 * `POST capture` and `POST precapture`: the console's optional usage events (spec §7, fire and
 * forget), from a signed-in user and from a page before sign-in (the login page). They stay on
 * this server, written to the debug log; nothing is sent anywhere.
 */
export async function captureRoutes(app: FastifyInstance, options: CaptureRoutesOptions) {
  app.post(apiPaths.capture, { config: { access: 'authenticated' } }, async (request) => {
    const event = parseInput(captureSchema, request.body);
    request.log.debug({ capture: event, user: request.identity?.user }, 'console usage event');
    return okBody;
  });

  app.post(
    apiPaths.precapture,
    { config: { access: 'public', rateLimit: options.rateLimit } },
    async (request) => {
      const event = parseInput(captureSchema, request.body);
      request.log.debug({ capture: event }, 'console usage event before sign-in');
      return okBody;
    },
  );
}
