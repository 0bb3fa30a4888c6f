import type { SshCertsRequest, SshCertsResponse } from '@postern/contracts';
import type { AuthSettings } from '../../config/auth-config.js';
import type { LoginMethod, LoginService } from '../auth/login.service.js';
import type { RequestContext } from '../auth/session-cookie.js';
import {
  MfaDeviceLocked,
  SecondFactorRejected,
  type SecondFactorService,
} from '../mfa/second-factor.service.js';
import type { MfaDeviceRecord } from '../users/users.store.js';
import { decodePassword } from '../users/passwords.js';
import { certifiableKey, type CertIssuer } from './cert-issuer.js';

export interface SshCertsDeps {
  login: LoginService;
  secondFactor: SecondFactorService;
  issuer: CertIssuer;
  settings: AuthSettings;
}

/**
 * `POST ssh/certs`: `postern login` with a password. The checks are the console's sign-in ones,
 * through the same LoginService (lockout counting, the same `invalid credentials` for every
 * failure, the same T1000 events); only the credential handed out differs.
 */
export class SshCertsService {
  constructor(private readonly deps: SshCertsDeps) {}

  async login(body: SshCertsRequest, ctx: RequestContext): Promise<SshCertsResponse> {
    const publicKey = certifiableKey(body.pub_key);
    const password = decodePassword(body.password, 'password');
    const { login, secondFactor } = this.deps;
    const assertion = body.webauthn_challenge_response;
    const method: LoginMethod = assertion
      ? 'password+webauthn'
      : this.deps.settings.secondFactor === 'off'
        ? 'password'
        : 'password+otp';
    const { user, credentials } = await login.checkPassword(body.user, password, ctx, method);
    let device: MfaDeviceRecord | undefined;
    if (secondFactor.required(credentials)) {
      try {
        if (assertion) {
          const expected = { user: body.user, purposes: ['login' as const] };
          ({ device } = await secondFactor.verifyAssertion(assertion, expected, ctx.origin));
        } else {
          device = await secondFactor.verifyTotp(body.user, body.otp_token ?? '');
        }
      } catch (error) {
        if (error instanceof MfaDeviceLocked) return login.refuseLockedDevice(error, method, ctx);
        if (!(error instanceof SecondFactorRejected)) throw error;
        return login.fail(body.user, true, method, ctx, error.message);
      }
    }
    await login.succeed(user, method, ctx, device);
    return this.deps.issuer.issue({
      user: user.metadata.name,
      roles: user.spec.roles,
      publicKey,
      requestedTtlMs: body.ttl,
      addr: ctx.addr,
      ...(device ? { mfaDevice: device.id } : {}),
    });
  }
}
