import { errorCatalogue, type ErrorCode } from '@postern/contracts';

/**
 * An error meant for the API caller: its message is safe to show and its code is one of the
 * catalogue's. Anything else that reaches the error handler is reported as a bare 'internal error'.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = errorCatalogue[code];
  }
}

export const badParameter = (message: string) => new ApiError('bad_parameter', message);
export const notFound = (message: string) => new ApiError('not_found', message);
export const accessDenied = (message = 'access denied') => new ApiError('access_denied', message);
export const notAuthenticated = (message = 'you are not signed in') =>
  new ApiError('not_authenticated', message);
