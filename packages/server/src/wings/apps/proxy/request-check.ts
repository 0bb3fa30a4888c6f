import type { IncomingMessage } from 'node:http';
import type { BodyFraming } from './request-headers.js';

export type RequestCheck = { refused: string } | { refused?: undefined; framing: BodyFraming };

/**
 * Refuses what the proxy must not pass on, before anything reaches the upstream:
 *
 * - a body framed twice (Content-Length and Transfer-Encoding): the two hops could disagree on
 *   where it ends and a second request hide in it (request smuggling). Node's parser refuses it
 *   already unless the server was made lenient; this check does not depend on that;
 * - a transfer coding other than plain chunked, which we could not frame the same way again;
 * - a target not in origin form (`http://other/`, `*`): the app is chosen by the host, never by
 *   the target;
 * - a path with `.` or `..` segments, which could climb out of the upstream base path; browsers
 *   never send them (they resolve them first), in any encoding.
 */
export function checkRequest(req: Pick<IncomingMessage, 'url' | 'headers'>): RequestCheck {
  const target = req.url ?? '';
  if (!target.startsWith('/')) return { refused: 'the request target must be a path' };
  if (hasDotSegment(target)) return { refused: 'the path has dot segments' };
  const length = req.headers['content-length'];
  const coding = req.headers['transfer-encoding'];
  if (length !== undefined && coding !== undefined) {
    return { refused: 'the body is framed by both Content-Length and Transfer-Encoding' };
  }
  if (coding !== undefined) {
    if (coding.trim().toLowerCase() !== 'chunked')
      return { refused: 'unsupported transfer coding' };
    return { framing: { kind: 'chunked' } };
  }
  if (length !== undefined) return { framing: { kind: 'length', length } };
  return { framing: { kind: 'none' } };
}

/** The request target's path, without the query: what the audit names. */
export function pathOf(target: string | undefined): string {
  const path = target ?? '';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

function hasDotSegment(target: string): boolean {
  // Servers behind us may decode %2e and %2f, or take a backslash for a slash: judge the path as
  // the most lenient of them would read it.
  const path = pathOf(target)
    .replace(/%2e/gi, '.')
    .replace(/%2f|%5c|\\/gi, '/');
  return path.split('/').some((segment) => segment === '.' || segment === '..');
}
