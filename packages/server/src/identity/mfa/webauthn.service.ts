import type { DeviceUsage, PublicKeyOptionsJson } from '@postern/contracts';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { decodeClientDataJSON, isoBase64URL } from '@simplewebauthn/server/helpers';
import type { Config } from '../../config/config.js';
import type { MfaDeviceRecord } from '../users/users.store.js';
import {
  challengeTtlMs,
  type ChallengePurpose,
  type ChallengeRecord,
  type ChallengeStore,
} from './challenges.store.js';

export type WebauthnCredential = NonNullable<MfaDeviceRecord['webauthn']>;

/** Thrown for any WebAuthn answer we do not accept; callers choose what the user is told. */
export class WebauthnRejected extends Error {
  override name = 'WebauthnRejected';
}

/** WebAuthn ceremonies: options out, answers checked against a stored, single-use challenge. */
export class WebauthnService {
  constructor(
    private readonly config: Config,
    private readonly challenges: ChallengeStore,
  ) {}

  /**
   * The origins an answer may come from: the public address over HTTPS, and the request's own
   * Origin when its host is the relying-party id itself (https, or http on localhost, which
   * browsers treat as secure: how tests reach a `--insecure-no-tls` server).
   */
  expectedOrigins(requestOrigin: string | undefined): string[] {
    const { host, port } = this.config.publicAddr;
    const bracketed = host.includes(':') ? `[${host}]` : host;
    const origins = [`https://${bracketed}${port === 443 ? '' : `:${port}`}`];
    const rpId = this.config.auth.rpId;
    const local = rpId === 'localhost' || rpId.endsWith('.localhost');
    try {
      const url = new URL(requestOrigin ?? '');
      const secure = url.protocol === 'https:' || (url.protocol === 'http:' && local);
      if (url.origin === requestOrigin && url.hostname === rpId && secure) origins.push(url.origin);
    } catch {
      // No Origin header, or not a URL: only the public origin is accepted.
    }
    return origins;
  }

  async registrationOptions(args: {
    user: string;
    userId: string;
    usage: DeviceUsage;
    existing: MfaDeviceRecord[];
    tokenHash: string;
  }): Promise<PublicKeyOptionsJson> {
    const passwordless = args.usage === 'passwordless';
    const userVerification = passwordless ? 'required' : 'discouraged';
    const options = await generateRegistrationOptions({
      rpName: 'Postern',
      rpID: this.config.auth.rpId,
      userName: args.user,
      userID: isoBase64URL.toBuffer(args.userId),
      attestationType: 'none',
      timeout: challengeTtlMs,
      excludeCredentials: credentialsOf(args.existing),
      // A passkey must be discoverable (the login names no user) and verify its holder.
      authenticatorSelection: passwordless
        ? { residentKey: 'required', requireResidentKey: true, userVerification }
        : { residentKey: 'discouraged', userVerification },
    });
    await this.challenges.put(options.challenge, {
      user: args.user,
      purpose: 'register',
      usage: args.usage,
      tokenHash: args.tokenHash,
      userVerification,
    });
    return { ...options };
  }

  /** Checks a new credential against the challenge issued for this user and token. */
  async verifyRegistration(args: {
    response: RegistrationResponseJSON;
    user: string;
    tokenHash: string;
    origin: string | undefined;
  }): Promise<{ usage: DeviceUsage; credential: Omit<WebauthnCredential, 'userHandle'> }> {
    const { challenge, record } = await this.takeChallenge(args.response.response.clientDataJSON);
    if (record.purpose !== 'register' || record.user !== args.user) throw rejected();
    if (record.tokenHash !== args.tokenHash) throw rejected();
    const result = await verifyRegistrationResponse({
      response: args.response,
      expectedChallenge: challenge,
      expectedOrigin: this.expectedOrigins(args.origin),
      expectedRPID: this.config.auth.rpId,
      requireUserVerification: record.userVerification === 'required',
    }).catch((error: unknown) => {
      throw new WebauthnRejected(`WebAuthn registration failed: ${(error as Error).message}`);
    });
    if (!result.verified) throw new WebauthnRejected('WebAuthn registration failed');
    const { credential } = result.registrationInfo;
    return {
      usage: record.usage ?? 'mfa',
      credential: {
        credentialId: credential.id,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? args.response.response.transports ?? [],
      },
    };
  }

  /** Options for an assertion; a passwordless login allows any discoverable credential. */
  async authenticationOptions(args: {
    user: string;
    purpose: ChallengePurpose;
    devices: MfaDeviceRecord[];
    subject?: string;
  }): Promise<PublicKeyOptionsJson> {
    const passwordless = args.purpose === 'passwordless';
    const userVerification = passwordless ? 'required' : 'discouraged';
    const options = await generateAuthenticationOptions({
      rpID: this.config.auth.rpId,
      allowCredentials: passwordless ? [] : credentialsOf(args.devices),
      userVerification,
      timeout: challengeTtlMs,
    });
    await this.challenges.put(options.challenge, {
      user: args.user,
      purpose: args.purpose,
      userVerification,
      ...(args.subject === undefined ? {} : { subject: args.subject }),
    });
    return { ...options };
  }

  /** Takes the challenge an assertion answers; it cannot be answered again, right or wrong. */
  async takeChallenge(
    clientDataJSON: string,
  ): Promise<{ challenge: string; record: ChallengeRecord }> {
    let challenge: string;
    try {
      challenge = decodeClientDataJSON(clientDataJSON).challenge;
    } catch {
      throw new WebauthnRejected('malformed WebAuthn client data');
    }
    const record = await this.challenges.consume(challenge);
    if (!record) throw rejected();
    return { challenge, record };
  }

  /** Verifies an assertion with a stored credential; returns the authenticator's new counter. */
  async verifyAssertion(args: {
    response: AuthenticationResponseJSON;
    challenge: string;
    record: ChallengeRecord;
    credential: WebauthnCredential;
    origin: string | undefined;
  }): Promise<number> {
    const result = await verifyAuthenticationResponse({
      response: args.response,
      expectedChallenge: args.challenge,
      expectedOrigin: this.expectedOrigins(args.origin),
      expectedRPID: this.config.auth.rpId,
      requireUserVerification: args.record.userVerification === 'required',
      credential: {
        id: args.credential.credentialId,
        publicKey: isoBase64URL.toBuffer(args.credential.publicKey),
        counter: args.credential.counter,
        transports: args.credential.transports as AuthenticatorTransportFuture[],
      },
    }).catch((error: unknown) => {
      throw new WebauthnRejected(`WebAuthn assertion failed: ${(error as Error).message}`);
    });
    if (!result.verified) throw new WebauthnRejected('WebAuthn assertion failed');
    return result.authenticationInfo.newCounter;
  }
}

const rejected = () =>
  new WebauthnRejected('the WebAuthn challenge is unknown, used or expired: please try again');

function credentialsOf(devices: MfaDeviceRecord[]) {
  return devices.flatMap((device) =>
    device.webauthn
      ? [
          {
            id: device.webauthn.credentialId,
            transports: device.webauthn.transports as AuthenticatorTransportFuture[],
          },
        ]
      : [],
  );
}
