import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A TEST-ONLY software WebAuthn authenticator: ES256 keys from node:crypto, 'none' attestation,
 * and assertions signed as a hardware key would sign them. It lets API tests run the real
 * WebAuthn ceremonies without a browser; browsers are covered by the e2e tests with Chromium's
 * virtual authenticator. Never use it outside tests.
 */
interface SoftCredential {
  id: Buffer;
  rpId: string;
  privateKey: KeyObject;
  userHandle: string;
  resident: boolean;
  counter: number;
}

type Json = Record<string, unknown>;

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const flag = { userPresent: 0x01, userVerified: 0x04, attestedData: 0x40 };

export class TestAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /** `origin` is what a browser would write into clientDataJSON. */
  constructor(public origin: string) {}

  /**
   * Answers `navigator.credentials.create()` for the options the server sent. `reuse` answers
   * with this authenticator's credential of that index (same id and key) instead of a new one,
   * as a cloned or misbehaving key would, ignoring `excludeCredentials`.
   */
  register(
    options: Json,
    extra: { userVerified?: boolean; origin?: string; reuse?: number } = {},
  ): Json {
    const rp = options.rp as { id: string };
    const user = options.user as { id: string };
    const selection = (options.authenticatorSelection ?? {}) as { residentKey?: string };
    const reused = extra.reuse === undefined ? undefined : this.credentials[extra.reuse];
    const privateKey =
      reused?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    // The point from the SPKI's last 65 bytes (04, x, y), not from a JWK export: Node 20 can
    // deadlock exporting a JWK of a just-generated key (ssh/ed25519-der.ts says how).
    const point = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-65);
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(point.subarray(1, 33))],
      [-3, new Uint8Array(point.subarray(33))],
    ]);
    const credential: SoftCredential = reused ?? {
      id: randomBytes(32),
      rpId: rp.id,
      privateKey,
      userHandle: user.id,
      resident: selection.residentKey === 'required',
      counter: 0,
    };
    if (!reused) this.credentials.push(credential);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(rp.id),
      Buffer.from([this.flags(extra.userVerified) | flag.attestedData]),
      Buffer.alloc(4), // sign count 0
      Buffer.alloc(16), // AAGUID: none
      idLength,
      credential.id,
      Buffer.from(isoCBOR.encode(cose)),
    ]);
    const attestation = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, never>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, never>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    const clientData = this.clientData('webauthn.create', options, extra.origin);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        attestationObject: b64url(attestation),
        clientDataJSON: b64url(clientData),
        transports: ['usb'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    };
  }

  /**
   * Answers `navigator.credentials.get()`. With allowCredentials it uses a listed key; without
   * (passwordless) a discoverable one for the relying party, and returns its user handle.
   */
  assert(options: Json, extra: { userVerified?: boolean; origin?: string } = {}): Json {
    const rpId = options.rpId as string;
    const allowed = ((options.allowCredentials ?? []) as { id: string }[]).map((each) => each.id);
    const credential = this.credentials.find((each) =>
      allowed.length > 0 ? allowed.includes(b64url(each.id)) : each.resident && each.rpId === rpId,
    );
    if (!credential) throw new Error('test authenticator: no matching credential');
    credential.counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(extra.userVerified)]),
      counter,
    ]);
    const clientData = this.clientData('webauthn.get', options, extra.origin);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientData)]),
      credential.privateKey,
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        authenticatorData: b64url(authData),
        clientDataJSON: b64url(clientData),
        signature: b64url(signature),
        ...(credential.resident ? { userHandle: credential.userHandle } : {}),
      },
      clientExtensionResults: {},
    };
  }

  private flags(userVerified = true): number {
    return flag.userPresent | (userVerified ? flag.userVerified : 0);
  }

  private clientData(type: string, options: Json, origin = this.origin): string {
    return JSON.stringify({ type, challenge: options.challenge, origin, crossOrigin: false });
  }
}
