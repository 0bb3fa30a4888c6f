import { describe, expect, it } from 'vitest';
import { hmacMd5, md4, Rc4, rc4Once } from './ntlm-crypto.js';
import { NtlmSession } from './ntlm-session.js';
import {
  authenticateMessage,
  lmv2Response,
  negotiateMessage,
  ntlmv2Response,
  ntowfv2,
  readAvPairs,
  readChallengeMessage,
} from './ntlm.js';
import { RdpProtocolError } from './rdp-wire.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// MS-NLMP 4.2.4 (NTLMv2 Authentication): user "User", domain "Domain", password "Password",
// server challenge 0123456789abcdef, client challenge aaaaaaaaaaaaaaaa, time 0, random session
// key 55…55, and the CHALLENGE_MESSAGE of 4.2.4.3 (target info: NetBIOS domain "Domain" and
// server "Server").
const spec = {
  user: 'User',
  domain: 'Domain',
  password: 'Password',
  serverChallenge: hex('0123456789abcdef'),
  clientChallenge: hex('aaaaaaaaaaaaaaaa'),
  time: Buffer.alloc(8),
  randomSessionKey: Buffer.alloc(16, 0x55),
  challenge: hex(`
    4e544c4d 53535000 02000000 0c000c00 38000000 33828ae2 01234567 89abcdef
    00000000 00000000 24002400 44000000 06007017 0000000f 53006500 72007600
    65007200 02000c00 44006f00 6d006100 69006e00 01000c00 53006500 72007600
    65007200 00000000`),
};

describe('MD4 and RC4 (written here: Node 20 has neither)', () => {
  it('gives RFC 1320’s MD4 test values', () => {
    const cases: [string, string][] = [
      ['', '31d6cfe0d16ae931b73c59d7e0c089c0'],
      ['abc', 'a448017aaf21d8525fc10ae87aa6729d'],
      ['message digest', 'd9130a8164549fe818874806e1c7014b'],
      ['abcdefghijklmnopqrstuvwxyz', 'd79e1c308aa5bbcdeea8ed63df412da9'],
      [
        '12345678901234567890123456789012345678901234567890123456789012345678901234567890',
        'e33b4ddc9c38f2199c3e7b164fcc0536',
      ],
    ];
    for (const [input, digest] of cases) {
      expect(md4(Buffer.from(input)).toString('hex')).toBe(digest);
    }
  });

  it('gives the published RC4 test values, as one stream across calls', () => {
    expect(rc4Once(Buffer.from('Key'), Buffer.from('Plaintext')).toString('hex')).toBe(
      'bbf316e8d940af0ad3',
    );
    const stream = new Rc4(Buffer.from('Secret'));
    const parts = [stream.update(Buffer.from('Attack ')), stream.update(Buffer.from('at dawn'))];
    expect(Buffer.concat(parts).toString('hex')).toBe('45a01f645fc35b383552544b9bf5');
  });
});

describe('NTLMv2 against MS-NLMP 4.2.4', () => {
  const key = ntowfv2(spec.password, spec.user, spec.domain);
  const challenge = readChallengeMessage(spec.challenge);

  it('reads the CHALLENGE_MESSAGE', () => {
    expect(challenge.flags >>> 0).toBe(0xe28a8233);
    expect(challenge.serverChallenge).toEqual(spec.serverChallenge);
    expect(readAvPairs(challenge.targetInfo).map((pair) => pair.value.toString('utf16le'))).toEqual(
      ['Domain', 'Server'],
    );
  });

  it('computes NTOWFv2 (4.2.4.1.1)', () => {
    expect(key.toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
  });

  it('computes the LMv2 response (4.2.4.2.1)', () => {
    expect(lmv2Response(key, spec.serverChallenge, spec.clientChallenge).toString('hex')).toBe(
      '86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa',
    );
  });

  it('computes NTProofStr and the session base key (4.2.4.1.2, 4.2.4.2.2)', () => {
    const nt = ntlmv2Response(
      key,
      spec.serverChallenge,
      spec.clientChallenge,
      spec.time,
      challenge.targetInfo,
    );
    expect(nt.ntProofStr.toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(nt.sessionBaseKey.toString('hex')).toBe('8de40ccadbc14a82f15cb0ad0de95ca3');
  });

  it('builds the AUTHENTICATE_MESSAGE with the encrypted session key (4.2.4.2.3)', () => {
    const negotiate = negotiateMessage();
    const auth = authenticateMessage({
      negotiate,
      challenge: spec.challenge,
      credentials: spec,
      clientChallenge: spec.clientChallenge,
      exportedSessionKey: spec.randomSessionKey,
      now: new Date(Date.UTC(1601, 0, 1)),
    });
    const message = auth.message;
    const field = (at: number) =>
      message.subarray(
        message.readUInt32LE(at + 4),
        message.readUInt32LE(at + 4) + message.readUInt16LE(at),
      );
    expect(field(12).toString('hex')).toBe('86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa');
    expect(field(20).subarray(0, 16).toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(field(28).toString('utf16le')).toBe('Domain');
    expect(field(36).toString('utf16le')).toBe('User');
    expect(field(52).toString('hex')).toBe('c5dad2544fc9799094ce1ce90bc9d03e');
    // No timestamp in the target info: no MIC.
    expect(message.subarray(72, 88)).toEqual(Buffer.alloc(16));
  });

  it('seals and signs as GSS_WrapEx does (4.2.4.4), and the server side unseals it', () => {
    const flags = 0xe28a8233;
    const client = new NtlmSession(spec.randomSessionKey, flags);
    const token = client.seal(Buffer.from('Plaintext', 'utf16le'));
    expect(token.subarray(16).toString('hex')).toBe('54e50165bf1936dc996020c1811b0f06fb5f');
    expect(token.subarray(0, 16).toString('hex')).toBe('010000007fb38ec5c55d497600000000');

    const server = new NtlmSession(spec.randomSessionKey, flags, 'server');
    expect(server.unseal(token).toString('utf16le')).toBe('Plaintext');
    // The next message has the next sequence number; a replayed one fails.
    const second = client.seal(Buffer.from('again'));
    expect(server.unseal(second).toString()).toBe('again');
    expect(() => server.unseal(second)).toThrow(RdpProtocolError);
  });
});

describe('the client’s own messages', () => {
  it('adds a MIC and MsvAvFlags when the server’s target info has a timestamp', () => {
    const timestamp = hex('0011223344556677');
    const info = Buffer.concat([
      hex('02000400'),
      Buffer.from('DO', 'utf16le'),
      hex('07000800'),
      timestamp,
      hex('00000000'),
    ]);
    const challenge = Buffer.concat([
      spec.challenge.subarray(0, 40),
      hex('0000000000000000'),
      info,
    ]);
    challenge.writeUInt16LE(info.length, 40);
    challenge.writeUInt16LE(info.length, 42);
    challenge.writeUInt32LE(48, 44);
    const negotiate = negotiateMessage();
    const { message, exportedSessionKey } = authenticateMessage({
      negotiate,
      challenge,
      credentials: spec,
    });
    const nt = message.subarray(
      message.readUInt32LE(24),
      message.readUInt32LE(24) + message.readUInt16LE(20),
    );
    // The response's time is the server's, and its target info says a MIC is there.
    expect(nt.subarray(24, 32)).toEqual(timestamp);
    const pairs = readAvPairs(nt.subarray(44));
    expect(pairs.find((pair) => pair.id === 6)?.value.readUInt32LE(0)).toBe(2);
    // LM is 24 zeros then; the MIC covers all three messages with the MIC field zeroed.
    expect(message.subarray(message.readUInt32LE(16), message.readUInt32LE(16) + 24)).toEqual(
      Buffer.alloc(24),
    );
    const zeroed = Buffer.from(message);
    zeroed.fill(0, 72, 88);
    expect(message.subarray(72, 88)).toEqual(
      hmacMd5(exportedSessionKey, negotiate, challenge, zeroed),
    );
  });

  it('refuses servers without 128-bit extended session security, and malformed challenges', () => {
    const weak = Buffer.from(spec.challenge);
    weak.writeUInt32LE((0xe28a8233 & ~0x00080000) >>> 0, 20);
    expect(() =>
      authenticateMessage({ negotiate: negotiateMessage(), challenge: weak, credentials: spec }),
    ).toThrow(/128-bit extended session security/);
    expect(() => readChallengeMessage(spec.challenge.subarray(0, 30))).toThrow(RdpProtocolError);
    const outOfBounds = Buffer.from(spec.challenge);
    outOfBounds.writeUInt16LE(0xff00, 40);
    expect(() => readChallengeMessage(outOfBounds)).toThrow(/out of bounds/);
    const cut = Buffer.from(spec.challenge);
    cut.writeUInt16LE(0x4000, 70); // the first AV pair claims more than there is
    expect(() => readChallengeMessage(cut)).toThrow(/cut short/);
  });
});
