import { sign, type KeyObject } from 'node:crypto';
import ssh2, { type AuthHandlerMiddleware, type Client, type ParsedKey } from 'ssh2';
import {
  ED25519,
  ed25519PrivateKeyObject,
  formatPublicKey,
  parsePublicKey,
  publicKeyFromPrivatePem,
} from './keys.js';
import { ED25519_CERT, parseCertificate } from './certificates.js';
import { protocolOf, sendRawPayload, type Ssh2Protocol } from './ssh2-internals.js';
import { SshWriter } from './wire.js';

/**
 * OpenSSH user-certificate login for ssh2 1.17 (pinned), which has none built in.
 *
 * A certificate login is an ordinary "publickey" userauth request (RFC 4252 §7) whose algorithm
 * is `ssh-ed25519-cert-v01@openssh.com` and whose key blob is the certificate; the signature
 * inside it, made with the plain Ed25519 private key, must still be labelled `ssh-ed25519`
 * (sshd checks that label against the key type under the certificate). ssh2 writes one
 * algorithm name in both places, so no key object alone can produce this request.
 *
 * We therefore replace `authPK` on this one connection's protocol object, and only for the one
 * key object we hand to ssh2 through `authHandler`; every other call goes to ssh2's own code.
 * Our `authPK` builds the request with our wire writer and sends it the way ssh2's does (see
 * ssh2-internals.ts), which is why ssh2 is pinned and a test logs in to a real sshd with it.
 */

const USERAUTH_REQUEST = 50;

export interface CertificateKey {
  privateKeyPem: string;
  /** OpenSSH line of the user certificate for that key. */
  certificate: string;
}

/** An `authHandler` that offers the certificate once, then gives up (so ssh2 reports failure). */
export function certificateAuthHandler(
  client: Client,
  login: string,
  key: CertificateKey,
): AuthHandlerMiddleware {
  const cert = parseCertificate(key.certificate);
  const privateKey = ed25519PrivateKeyObject(key.privateKeyPem);
  if (!parsePublicKey(publicKeyFromPrivatePem(key.privateKeyPem)).blob.equals(cert.publicKeyBlob)) {
    throw new Error('the certificate was issued for another key than the private key given');
  }
  // A genuine ssh2 key (of the certified public key) underneath, so ssh2's own checks on the
  // object we return (`parseKey`, `isPrivateKey`) pass; only our authPK ever uses it.
  const innerKey = ssh2.utils.parseKey(formatPublicKey(ED25519, cert.publicKeyBlob));
  if (innerKey instanceof Error) throw innerKey;
  const offeredKey: ParsedKey = Object.create(innerKey, { isPrivateKey: { value: () => true } });
  let offered = false;
  return (_methodsLeft, _partialSuccess, next) => {
    // `false` tells ssh2 there is nothing more to try; its typings leave that value out.
    if (offered) return next(false as never);
    offered = true;
    installCertificateAuthPK(protocolOf(client), offeredKey, cert.blob, privateKey);
    next({ type: 'publickey', username: login, key: offeredKey });
  };
}

function installCertificateAuthPK(
  protocol: Ssh2Protocol,
  offeredKey: ParsedKey,
  certificateBlob: Buffer,
  privateKey: KeyObject,
): void {
  const original = protocol.authPK.bind(protocol);
  protocol.authPK = (username, key, keyAlgo, cbSign) => {
    if (key !== offeredKey) return original(username, key, keyAlgo, cbSign);
    // ssh2 first asks without a signature ("publickey -- check"), then, on PK_OK, with one.
    const withSignature = typeof cbSign === 'function' || typeof keyAlgo === 'function';
    const request = new SshWriter()
      .byte(USERAUTH_REQUEST)
      .string(username)
      .string('ssh-connection')
      .string('publickey')
      .bool(withSignature)
      .string(ED25519_CERT)
      .string(certificateBlob)
      .toBuffer();
    if (!withSignature) return send(protocol, request);
    // RFC 4252 §7: the signature covers the session id followed by the request so far.
    const signedData = new SshWriter().string(protocol._kex.sessionID).raw(request).toBuffer();
    const signature = new SshWriter().string(ED25519).string(sign(null, signedData, privateKey));
    send(protocol, new SshWriter().raw(request).string(signature.toBuffer()).toBuffer());
  };
}

function send(protocol: Ssh2Protocol, payload: Buffer): void {
  // ssh2 matches the reply (message 60 means different things per method) against this queue.
  protocol._authsQueue.push('publickey');
  sendRawPayload(protocol, payload);
}
