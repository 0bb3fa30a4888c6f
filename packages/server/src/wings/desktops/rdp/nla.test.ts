import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ByteInput } from '../rfb/byte-input.js';
import { encodeTsCredentials } from './credssp.js';
import { authenticateWithNla, NlaRefusedError, splitLogin } from './nla.js';
import {
  runScriptedCredSspServer,
  type ScriptedServerOptions,
  type ServerOutcome,
} from './nla-server.testkit.js';
import { RdpProtocolError } from './rdp-wire.js';

// The CredSSP exchange (nla.ts) against a scripted server (nla-server.testkit.ts) over loopback
// TCP, TLS left out: the server checks the client's NTLMv2 proof, MIC and public key binding
// as a real one does, and ends as each test scripts it.

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** MS-NLMP 4.2.4.3's CHALLENGE_MESSAGE: challenge 0123456789abcdef, target info without time. */
const specChallenge = hex(`
  4e544c4d 53535000 02000000 0c000c00 38000000 33828ae2 01234567 89abcdef
  00000000 00000000 24002400 44000000 06007017 0000000f 53006500 72007600
  65007200 02000c00 44006f00 6d006100 69006e00 01000c00 53006500 72007600
  65007200 00000000`);

/** The same with an MsvAvTimestamp in its target info, as Windows sends: the MIC is due. */
function challengeWithTimestamp(): Buffer {
  const info = Buffer.concat([
    specChallenge.subarray(68, 100),
    hex('07000800'),
    randomBytes(8),
    hex('00000000'),
  ]);
  const message = Buffer.concat([specChallenge.subarray(0, 68), info]);
  message.writeUInt16LE(info.length, 40);
  message.writeUInt16LE(info.length, 42);
  return message;
}

const credentials = { user: 'User', domain: 'Domain', password: 'Password' };
const publicKey = randomBytes(270);

let server: Server | undefined;
afterEach(() => server?.close());

/** Runs the client against the scripted server; resolves with both ends' outcomes. */
async function exchange(options: Partial<ScriptedServerOptions> = {}) {
  let outcome!: Promise<ServerOutcome>;
  server = createServer((socket: Socket) => {
    outcome = runScriptedCredSspServer(socket, {
      version: 6,
      challenge: challengeWithTimestamp(),
      password: credentials.password,
      publicKey,
      script: 'accept',
      ...options,
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise((resolve) => socket.once('connect', resolve));
  const client = authenticateWithNla({
    send: (data) => socket.write(data),
    input: new ByteInput(socket, 'the desktop'),
    serverPublicKey: publicKey,
    credentials,
  }).then(
    () => undefined,
    (error: Error) => error,
  );
  const error = await client;
  socket.destroy();
  return { error, server: await outcome };
}

describe('CredSSP with NTLM against a scripted server', () => {
  it('version 6: NTLMv2 with a MIC, nonce-bound key hashes, then the sealed password', async () => {
    const { error, server } = await exchange();
    expect(error).toBeUndefined();
    expect(server.proofChecked).toBe(true);
    expect(server.micChecked).toBe(true);
    expect(server.requests.map((request) => request.version)).toEqual([6, 6, 6]);
    expect(server.requests[1]!.clientNonce).toHaveLength(32);
    expect(server.credentials).toEqual(encodeTsCredentials(credentials));
  });

  it('version 3 with the spec’s own challenge: the key itself, and back with its first byte + 1', async () => {
    const { error, server } = await exchange({ version: 3, challenge: specChallenge });
    expect(error).toBeUndefined();
    expect(server.proofChecked).toBe(true);
    expect(server.micChecked).toBe(false); // no timestamp: no MIC
    // The first message says 6; once the server said 3, the client speaks 3.
    expect(server.requests.map((request) => request.version)).toEqual([6, 3, 3]);
    expect(server.requests[1]!.clientNonce).toBeUndefined();
    expect(server.credentials).toEqual(encodeTsCredentials(credentials));
  });

  it('a wrong password refused with an error code gives the reason with the status', async () => {
    const { error, server } = await exchange({ password: 'another' });
    expect(server.proofChecked).toBe(false);
    expect(error).toBeInstanceOf(NlaRefusedError);
    expect(error?.message).toBe('the desktop refused the login (NLA: STATUS_LOGON_FAILURE)');
  });

  it('a server that hangs up on the credentials refused them', async () => {
    const { error } = await exchange({ script: 'hang-up' });
    expect(error).toBeInstanceOf(NlaRefusedError);
    expect(error?.message).toBe('the desktop refused the login (NLA)');
  });

  it('stops before the password when the server proves another TLS key', async () => {
    const { error, server } = await exchange({ script: 'wrong-proof' });
    expect(error?.message).toMatch(/does not match its TLS key/);
    expect(server.credentials).toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it('ends with a protocol error (not a crash) on a malformed message', async () => {
    const { error } = await exchange({ script: 'garbage' });
    expect(error).toBeInstanceOf(RdpProtocolError);
    expect(error?.message).toMatch(/^malformed CredSSP message/);
  });
});

describe('logins', () => {
  it('splits DOMAIN\\user, keeps a UPN whole, and leaves a given domain alone', () => {
    expect(splitLogin({ user: 'CORP\\alice' })).toEqual({ user: 'alice', domain: 'CORP' });
    expect(splitLogin({ user: 'alice@corp.example' })).toEqual({
      user: 'alice@corp.example',
      domain: '',
    });
    expect(splitLogin({ user: 'alice' })).toEqual({ user: 'alice', domain: '' });
    expect(splitLogin({ user: 'alice', domain: 'HOST' })).toEqual({
      user: 'alice',
      domain: 'HOST',
    });
  });
});
