import { createHash } from 'node:crypto';
import { pipeline, Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256Hex, signedRequestHeaders } from '../../ssh/signed-request.js';

const digests = new WeakMap<object, string>();

const announcesBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined ||
  Number(request.headers['content-length'] ?? 0) > 0;

/**
 * For a request signed with a user certificate (ssh/signed-request.ts) that has a body: the
 * SHA-256 of the body's bytes as they arrive, before any parser reads them, so the signature
 * can be checked against exactly what was sent. Registered on the root server, so it sees the
 * requests of every part and wing.
 */
export function hashSignedBodies(server: FastifyInstance): void {
  server.addHook('preParsing', async (request, _reply, payload) => {
    if (request.headers[signedRequestHeaders.signature] === undefined) return payload;
    if (!announcesBody(request)) return payload;
    const hash = createHash('sha256');
    let received = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        received += chunk.length;
        // Fastify compares this with Content-Length once the body is read.
        (this as Transform & { receivedEncodedLength?: number }).receivedEncodedLength = received;
        done(null, chunk);
      },
      flush(done) {
        digests.set(request, hash.digest('hex'));
        done();
      },
    });
    // A client that breaks off fails the parser's read instead of leaving it waiting.
    pipeline(payload, hashing, () => undefined);
    return hashing;
  });
}

/**
 * The SHA-256 of the body a request sent: what hashSignedBodies saw, the empty body's for a
 * request that announced none, and undefined for one whose body was not (or not wholly) read.
 */
export function signedBodyDigest(request: FastifyRequest): string | undefined {
  const digest = digests.get(request);
  if (digest !== undefined) return digest;
  return announcesBody(request) ? undefined : sha256Hex();
}
