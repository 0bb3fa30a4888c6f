import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { choppedInput } from '../rfb/rfb.testkit.js';
import {
  decodeTsRequest,
  encodeTsCredentials,
  encodeTsRequest,
  readTsRequest,
  subjectPublicKey,
} from './credssp.js';
import { RdpProtocolError } from './rdp-wire.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('TSRequest (MS-CSSP 2.2.1)', () => {
  it('encodes to the DER worked out by hand', () => {
    const request = encodeTsRequest({ version: 6, negoTokens: [Buffer.from('NTLM')] });
    expect(request.toString('hex')).toBe(
      '3013' + 'a003020106' + 'a10c' + '300a' + '3008' + 'a006' + '04044e544c4d',
    );
  });

  it('round-trips every field, with long lengths', () => {
    const full = {
      version: 6,
      negoTokens: [randomBytes(300), randomBytes(3)],
      authInfo: randomBytes(70_000), // a three-byte DER length
      pubKeyAuth: randomBytes(48),
      errorCode: 0xc000006d,
      clientNonce: randomBytes(32),
    };
    expect(decodeTsRequest(encodeTsRequest(full))).toEqual(full);
    expect(decodeTsRequest(encodeTsRequest({ version: 2 }))).toEqual({ version: 2 });
  });

  it('reads an NTSTATUS the way Windows writes it (a negative INTEGER) as unsigned', () => {
    const request = hex('300d a003020103 a406 0204c000006d');
    expect(decodeTsRequest(request)).toEqual({ version: 3, errorCode: 0xc000006d });
  });

  it('reads one off a stream however it is chopped, and leaves what follows', async () => {
    const request = encodeTsRequest({ version: 6, pubKeyAuth: randomBytes(200) });
    const input = choppedInput(Buffer.concat([request, Buffer.from([3, 0])]), 7, 5);
    expect(await readTsRequest(input)).toEqual(decodeTsRequest(request));
    expect([...(await input.read(2))]).toEqual([3, 0]);
  });

  it('refuses malformed DER with a protocol error', () => {
    const bad = [
      hex('3005a009020106'), // a field longer than its container
      hex('3003a10102'), // cut short
      hex('3005a103040100'), // negoTokens not a SEQUENCE
      hex('3000'), // no version
      hex('0403a00102'), // not a SEQUENCE
      hex('3009a0070205ffffffffff'), // an integer too large
      hex('3084000000'), // a length of four bytes
    ];
    for (const der of bad)
      expect(() => decodeTsRequest(der), der.toString('hex')).toThrow(RdpProtocolError);
  });

  it('refuses a TSRequest too large to be one before reading it', async () => {
    await expect(readTsRequest(choppedInput(hex('30830f0000')))).rejects.toThrow(/bytes/);
  });
});

describe('TSCredentials and the TLS key', () => {
  it('encodes TSPasswordCreds inside TSCredentials, strings in UTF-16LE', () => {
    expect(encodeTsCredentials({ domain: 'D', user: 'u', password: 'p' }).toString('hex')).toBe(
      '301d a003020101 a116 0414 3012 a004 04024400 a104 04027500 a204 04027000'.replace(/ /g, ''),
    );
  });

  it('takes the subjectPublicKey out of a SubjectPublicKeyInfo (RSA: the PKCS#1 key)', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    expect(subjectPublicKey(spki)).toEqual(publicKey.export({ type: 'pkcs1', format: 'der' }));
  });
});
