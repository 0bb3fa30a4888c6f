import { createHash, randomBytes, sign } from 'node:crypto';
import { parseCertificate } from './certificates.js';
import { ed25519PrivateKeyObject } from './keys.js';

/**
 * An HTTP request signed with the key of a user certificate, so the CLI can call the proxy with
 * what `postern login` gave it (no web session, no bearer on disk). The signature covers the
 * method, the path with its query, a timestamp the proxy accepts within a few minutes of its
 * clock, the SHA-256 of the body (empty without one) and a random nonce, so a request seen on the
 * way (a balancer's log, say) can be neither changed nor sent again: the proxy takes each
 * signature once. The nonce keeps two identical requests signed in the same millisecond (the
 * tunnels `postern proxy app` opens for a burst of connections) from sharing one signature, which
 * Ed25519 would otherwise make the same. The certificate says who the key belongs to and until
 * when.
 */
export const signedRequestHeaders = {
  /** The certificate blob, base64 (the middle field of the `-cert.pub` line). */
  certificate: 'x-postern-certificate',
  /** Milliseconds since the epoch, decimal. */
  timestamp: 'x-postern-timestamp',
  /** Raw Ed25519 signature of `signedRequestPayload`, base64. */
  signature: 'x-postern-signature',
  /** The body's SHA-256, lower-case hex (of nothing for a request without a body). */
  contentSha256: 'x-postern-content-sha256',
  /** 16 random bytes, hex: each signature is new, even for the same request in the same ms. */
  nonce: 'x-postern-nonce',
} as const;

/** What a nonce must look like (the signer makes 32 hex digits). */
export const signedRequestNonce = /^[0-9a-f]{32}$/;

export function signedRequestPayload(
  method: string,
  pathAndQuery: string,
  timestamp: string,
  contentSha256: string,
  nonce: string,
) {
  return Buffer.from(
    `postern-signed-request-v3\n${method.toUpperCase()}\n${pathAndQuery}\n${timestamp}\n${contentSha256}\n${nonce}`,
  );
}

export function sha256Hex(body: string | Buffer = ''): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The headers that sign one request with a certificate's private key. */
export function signRequest(args: {
  method: string;
  pathAndQuery: string;
  certificateLine: string;
  privateKeyPem: string;
  now: number;
  /** The exact bytes sent as the body, if any. */
  body?: string | Buffer;
}): Record<string, string> {
  const timestamp = String(args.now);
  const contentSha256 = sha256Hex(args.body);
  const nonce = randomBytes(16).toString('hex');
  const payload = signedRequestPayload(
    args.method,
    args.pathAndQuery,
    timestamp,
    contentSha256,
    nonce,
  );
  const signature = sign(null, payload, ed25519PrivateKeyObject(args.privateKeyPem));
  return {
    [signedRequestHeaders.certificate]: parseCertificate(args.certificateLine).blob.toString(
      'base64',
    ),
    [signedRequestHeaders.timestamp]: timestamp,
    [signedRequestHeaders.signature]: signature.toString('base64'),
    [signedRequestHeaders.contentSha256]: contentSha256,
    [signedRequestHeaders.nonce]: nonce,
  };
}
