import { apiPrefix, errorBody, errorCatalogue, type ErrorCode } from '@postern/contracts';
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

const codeForStatus: Record<number, ErrorCode> = {
  400: 'bad_parameter',
  401: 'not_authenticated',
  403: 'access_denied',
  404: 'not_found',
  409: 'already_exists',
  412: 'compare_failed',
  413: 'too_large',
  415: 'bad_parameter',
  429: 'limit_exceeded',
};

/**
 * Every error leaves as `{error: {message, code}, message}` with a catalogue code. Client errors
 * keep their message; anything unexpected is logged and reported as 'internal error', so no stack
 * trace or internal detail ever reaches a caller.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.status(error.statusCode).send(errorBody(error.code, error.message));
    }
    // Domain errors (stores, services) speak the catalogue through their `code`; their messages
    // are written for callers. Node's own errors use other codes (ENOENT…) and fall through.
    const domainCode = (error as { code?: unknown }).code;
    if (isClientErrorCode(domainCode)) {
      // The caller gets "try again"; the operator needs to know the storage is stalling.
      if (errorCatalogue[domainCode] >= 500) request.log.warn({ err: error }, error.message);
      return reply.status(errorCatalogue[domainCode]).send(errorBody(domainCode, error.message));
    }
    const status = error.statusCode ?? 500;
    const code = codeForStatus[status];
    if (status < 500 && code) {
      return reply.status(status).send(errorBody(code, error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody('internal', 'internal error'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const message = path.startsWith(`${apiPrefix}/`)
      ? `no API endpoint ${request.method} ${path}`
      : 'The requested path could not be found.';
    return reply.status(404).send(errorBody('not_found', message));
  });
}

function isClientErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && code !== 'internal' && Object.hasOwn(errorCatalogue, code);
}
