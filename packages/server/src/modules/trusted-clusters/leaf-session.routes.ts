import { agentPaths } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import type { LeafSessions } from './leaf-sessions.js';

const leafSessionRequestSchema = z.object({
  root: z.string().min(1).max(64),
  identity: z
    .string()
    .min(1)
    .max(64 * 1024),
});

/**
 * The leaf's one route for its roots: a root user's signed identity buys a leaf session. It
 * answers only on connections a root opened through its own tunnel, and only for that root;
 * anywhere else (the web port) it does not exist.
 */
export async function leafSessionRoutes(
  app: FastifyInstance,
  options: { leafSessions: LeafSessions; rootOf: (request: FastifyRequest) => string | undefined },
) {
  app.post(agentPaths.leafSession, { config: { access: 'public' } }, async (request) => {
    const root = options.rootOf(request);
    if (!root) throw notFound('not found');
    const body = parseInput(leafSessionRequestSchema, request.body);
    if (body.root !== root) throw notFound('not found');
    return options.leafSessions.admit(root, body.identity);
  });
}
