import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

/**
 * Per-address limits for the routes that check secrets (sign-in, invite links). Only routes
 * that set `config.rateLimit` are limited. Counts are kept per process: with several proxies an
 * address gets the limit at each, while the lockout (counted in the backend) still holds.
 */
export async function installRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new ApiError('limit_exceeded', `too many requests: try again in ${context.after}`),
  });
}

export const perMinute = (max: number) => ({ max, timeWindow: 60_000 });
