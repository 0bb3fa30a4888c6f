import { sign } from 'node:crypto';
import { parseCertificate } from './certificates.js';
import { ed25519PrivateKeyObject } from './keys.js';

/**
 * An HTTP request signed with the key of a user certificate, so the CLI can call the proxy with
 * what `postern login` gave it (no web session, no bearer on disk). The signature covers the
 * method, the path with its query, and a timestamp the proxy accepts within a few minutes of
 * its clock; the certificate says who the key belongs to and until when.
 */
export const signedRequestHeaders = {
  /** The certificate blob, base64 (the middle field of the `-cert.pub` line). */
  certificate: 'x-postern-certificate',
  /** Milliseconds since the epoch, decimal. */
  timestamp: 'x-postern-timestamp',
  /** Raw Ed25519 signature of `signedRequestPayload`, base64. */
  signature: 'x-postern-signature',
} as const;

export function signedRequestPayload(method: string, pathAndQuery: string, timestamp: string) {
  return Buffer.from(
    `postern-signed-request-v1\n${method.toUpperCase()}\n${pathAndQuery}\n${timestamp}`,
  );
}

/** The headers that sign one request with a certificate's private key. */
export function signRequest(args: {
  method: string;
  pathAndQuery: string;
  certificateLine: string;
  privateKeyPem: string;
  now: number;
}): Record<string, string> {
  const timestamp = String(args.now);
  const payload = signedRequestPayload(args.method, args.pathAndQuery, timestamp);
  const signature = sign(null, payload, ed25519PrivateKeyObject(args.privateKeyPem));
  return {
    [signedRequestHeaders.certificate]: parseCertificate(args.certificateLine).blob.toString(
      'base64',
    ),
    [signedRequestHeaders.timestamp]: timestamp,
    [signedRequestHeaders.signature]: signature.toString('base64'),
  };
}
