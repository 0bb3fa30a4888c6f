import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ByteInput } from '../rfb/byte-input.js';
import { PeerGoneError } from '../rfb/rfb-errors.js';
import { encodeTsCredentials, encodeTsRequest, readTsRequest, type TsRequest } from './credssp.js';
import { NtlmSession } from './ntlm-session.js';
import { authenticateMessage, negotiateMessage, type NtlmCredentials } from './ntlm.js';
import { RdpProtocolError } from './rdp-wire.js';

/**
 * Network Level Authentication: CredSSP (MS-CSSP 3.1.5) with NTLM inside the TLS connection,
 * before any RDP is spoken. The server learns who signs in before it starts a session, and the
 * client proves, with the NTLM session key, that the TLS key it sees is the server's own (no one
 * in the middle can relay the login), then hands over the password, sealed.
 */

/** The CredSSP version spoken: 6 (nonce-bound public key hashes, error codes). */
const ourVersion = 6;

/** The desktop said no to the credentials (or hung up on them): the session's reason. */
export class NlaRefusedError extends RdpProtocolError {}

const refused = (detail?: string) =>
  new NlaRefusedError(`the desktop refused the login (NLA${detail ? `: ${detail}` : ''})`);

/** The NTSTATUS codes a refused login most often carries (MS-ERREF 2.3.1). */
const statusNames: Record<number, string> = {
  0xc000006d: 'STATUS_LOGON_FAILURE',
  0xc000006e: 'STATUS_ACCOUNT_RESTRICTION',
  0xc000006f: 'STATUS_INVALID_LOGON_HOURS',
  0xc0000070: 'STATUS_INVALID_WORKSTATION',
  0xc0000071: 'STATUS_PASSWORD_EXPIRED',
  0xc0000072: 'STATUS_ACCOUNT_DISABLED',
  0xc0000193: 'STATUS_ACCOUNT_EXPIRED',
  0xc0000224: 'STATUS_PASSWORD_MUST_CHANGE',
  0xc0000234: 'STATUS_ACCOUNT_LOCKED_OUT',
  0xc000015b: 'STATUS_LOGON_TYPE_NOT_GRANTED',
};
const statusName = (code: number) => statusNames[code] ?? `NTSTATUS 0x${code.toString(16)}`;

/**
 * NTLM's user and domain from a login: `DOMAIN\user` is split; `user@domain` (a UPN) is kept
 * whole with an empty domain, which is how Windows clients send one so that the domain
 * controller resolves it, whatever the UPN suffix is.
 */
export function splitLogin(login: { user: string; domain?: string }) {
  if (login.domain !== undefined) return { user: login.user, domain: login.domain };
  const slash = login.user.indexOf('\\');
  if (slash < 0) return { user: login.user, domain: '' };
  return { user: login.user.slice(slash + 1), domain: login.user.slice(0, slash) };
}

const bindingHash = (
  direction: 'Client-To-Server' | 'Server-To-Client',
  nonce: Buffer,
  key: Buffer,
) =>
  createHash('sha256')
    .update(`CredSSP ${direction} Binding Hash\0`)
    .update(nonce)
    .update(key)
    .digest();

export interface NlaOptions {
  /** Writes to the TLS connection. */
  send(data: Buffer): void;
  /** Reads from it. */
  input: ByteInput;
  /** The subjectPublicKey of the server's TLS certificate (credssp.ts subjectPublicKey). */
  serverPublicKey: Buffer;
  credentials: NtlmCredentials;
}

/** Runs CredSSP to its end; throws NlaRefusedError for a refused login, RdpProtocolError else. */
export async function authenticateWithNla(options: NlaOptions): Promise<void> {
  const { send, input, serverPublicKey, credentials } = options;
  let sentAuthenticate = false;
  const receive = async (): Promise<TsRequest> => {
    let request: TsRequest;
    try {
      request = await readTsRequest(input);
    } catch (error) {
      if (!(error instanceof PeerGoneError)) throw error;
      // Windows hangs up on a wrong password when it does not send an error code.
      if (sentAuthenticate) throw refused();
      throw new RdpProtocolError('the desktop closed the connection during NLA');
    }
    if (request.errorCode) throw refused(statusName(request.errorCode));
    return request;
  };

  const negotiate = negotiateMessage();
  send(encodeTsRequest({ version: ourVersion, negoTokens: [negotiate] }));
  const answer = await receive();
  const challenge = answer.negoTokens?.[0];
  if (!challenge) throw new RdpProtocolError('the desktop sent no NTLM challenge in CredSSP');
  // From here the client speaks the lower of the two versions: the server checks by its own.
  const version = Math.min(ourVersion, answer.version);

  const auth = authenticateMessage({ negotiate, challenge, credentials });
  const session = new NtlmSession(auth.exportedSessionKey, auth.flags);
  // Version 5 and later bind a hash of a fresh nonce and the key, earlier ones the key itself.
  const nonce = version >= 5 ? randomBytes(32) : undefined;
  const proof = nonce ? bindingHash('Client-To-Server', nonce, serverPublicKey) : serverPublicKey;
  send(
    encodeTsRequest({
      version,
      negoTokens: [auth.message],
      pubKeyAuth: session.seal(proof),
      ...(nonce ? { clientNonce: nonce } : {}),
    }),
  );
  sentAuthenticate = true;

  const echo = await receive();
  if (!echo.pubKeyAuth) throw new RdpProtocolError('the desktop sent no CredSSP public key proof');
  const echoed = session.unseal(echo.pubKeyAuth);
  const expected = nonce
    ? bindingHash('Server-To-Client', nonce, serverPublicKey)
    : Buffer.concat([Buffer.from([(serverPublicKey[0]! + 1) & 0xff]), serverPublicKey.subarray(1)]);
  if (echoed.length !== expected.length || !timingSafeEqual(echoed, expected)) {
    // The server that checked the password saw another TLS key than ours: someone in the
    // middle terminates our TLS connection.
    throw new RdpProtocolError("the desktop's CredSSP proof does not match its TLS key");
  }
  send(encodeTsRequest({ version, authInfo: session.seal(encodeTsCredentials(credentials)) }));
}
