import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import { ByteInput } from '../rfb/byte-input.js';
import { encodeTsRequest, readTsRequest, type TsRequest } from './credssp.js';
import { hmacMd5, rc4Once } from './ntlm-crypto.js';
import { NtlmSession } from './ntlm-session.js';
import { ntowfv2, ntlmFlag } from './ntlm.js';

/** How the scripted server ends the exchange. */
export type ServerScript =
  | 'accept'
  /** Answers the AUTHENTICATE with errorCode STATUS_LOGON_FAILURE, as Windows does. */
  | 'error-code'
  /** Hangs up on the AUTHENTICATE, as FreeRDP's server does. */
  | 'hang-up'
  /** Knows the session key but proves a different TLS key (a relay in the middle). */
  | 'wrong-proof'
  /** Answers the NEGOTIATE with bytes that are no DER. */
  | 'garbage';

export interface ScriptedServerOptions {
  /** The CredSSP version it speaks (2 to 6). */
  version: number;
  /** The CHALLENGE_MESSAGE it sends (MS-NLMP 4.2.4.3's, or one with a timestamp). */
  challenge: Buffer;
  /** The account it knows. */
  password: string;
  /** What it calls its TLS key (no TLS here: the exchange is what is tested). */
  publicKey: Buffer;
  script: ServerScript;
}

export interface ServerOutcome {
  requests: TsRequest[];
  /** The NTLMv2 proof checked against the password, and the MIC when there is one. */
  proofChecked: boolean;
  micChecked: boolean;
  /** The TSCredentials the client sent, unsealed. */
  credentials?: Buffer;
}

const field = (message: Buffer, at: number) => {
  const offset = message.readUInt32LE(at + 4);
  return message.subarray(offset, offset + message.readUInt16LE(at));
};

/**
 * A CredSSP server written from MS-CSSP 3.1.5 and MS-NLMP 3.2.5 for tests: it checks what the
 * client sends as a server must (the NTLMv2 proof against the password, the MIC, the public key
 * binding) and then answers as the script says.
 */
export async function runScriptedCredSspServer(
  socket: Socket,
  options: ScriptedServerOptions,
): Promise<ServerOutcome> {
  const input = new ByteInput(socket, 'the client');
  const outcome: ServerOutcome = { requests: [], proofChecked: false, micChecked: false };
  const receive = async () => {
    const request = await readTsRequest(input);
    outcome.requests.push(request);
    return request;
  };
  const send = (request: Omit<TsRequest, 'version'>) =>
    socket.write(encodeTsRequest({ version: options.version, ...request }));

  const first = await receive();
  const negotiate = first.negoTokens![0]!;
  if (options.script === 'garbage') {
    socket.end(Buffer.from([0x30, 0x05, 0xa0, 0x09, 0x02, 0x01, 0x06]));
    return outcome;
  }
  send({ negoTokens: [options.challenge] });

  const second = await receive();
  const auth = second.negoTokens![0]!;
  const user = field(auth, 36).toString('utf16le');
  const domain = field(auth, 28).toString('utf16le');
  const nt = field(auth, 20);
  const key = ntowfv2(options.password, user, domain);
  const serverChallenge = options.challenge.subarray(24, 32);
  const ntProofStr = hmacMd5(key, serverChallenge, nt.subarray(16));
  outcome.proofChecked = ntProofStr.equals(nt.subarray(0, 16));
  if (options.script === 'error-code' || !outcome.proofChecked) {
    send({ errorCode: 0xc000006d });
    socket.end();
    return outcome;
  }
  if (options.script === 'hang-up') {
    socket.end();
    return outcome;
  }
  const flags = auth.readUInt32LE(60);
  const sessionBaseKey = hmacMd5(key, ntProofStr);
  const exported =
    flags & ntlmFlag.keyExchange ? rc4Once(sessionBaseKey, field(auth, 52)) : sessionBaseKey;
  const mic = Buffer.from(auth.subarray(72, 88));
  if (!mic.equals(Buffer.alloc(16))) {
    const zeroed = Buffer.from(auth);
    zeroed.fill(0, 72, 88);
    outcome.micChecked = hmacMd5(exported, negotiate, options.challenge, zeroed).equals(mic);
  }

  const session = new NtlmSession(exported, flags, 'server');
  const proof = session.unseal(second.pubKeyAuth!);
  const nonce = second.clientNonce;
  const hash = (direction: string) =>
    createHash('sha256')
      .update(`CredSSP ${direction} Binding Hash\0`)
      .update(nonce!)
      .update(options.publicKey)
      .digest();
  const expected = nonce ? hash('Client-To-Server') : options.publicKey;
  if (!proof.equals(expected)) throw new Error('the client proved another public key');
  let answer = nonce
    ? hash('Server-To-Client')
    : Buffer.concat([Buffer.from([options.publicKey[0]! + 1]), options.publicKey.subarray(1)]);
  if (options.script === 'wrong-proof') answer = Buffer.alloc(answer.length, 0x42);
  send({ pubKeyAuth: session.seal(answer) });

  if (options.script === 'accept') {
    const third = await receive();
    outcome.credentials = session.unseal(third.authInfo!);
  }
  socket.end();
  return outcome;
}
