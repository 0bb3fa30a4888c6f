import type { AuthProvider } from '@postern/contracts';
import { useCallback, useState } from 'react';
import { finishSignIn } from '../../app/session/signIn';
import { pageLocation } from '../../lib/pageLocation';
import type { MfaMethod } from '../../lib/secondFactor';
import { writeLastActive } from '../../app/session/storage';
import { providerLoginUrl } from './authOptions';
import { rememberMfaMethod } from './lastMfaMethod';
import {
  signInWithHardwareKey,
  signInWithPasskey,
  signInWithPassword,
  type Credentials,
} from './loginApi';

export type LoginAttempt =
  { status: 'idle' } | { status: 'processing' } | { status: 'error'; message: string };

export interface LocalLogin extends Credentials {
  method: MfaMethod;
  code: string;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Sign-in actions for the login page. Success ends in a full page load of `target` (already
 * checked to be a same-origin path), so the state stays 'processing' while the browser leaves.
 */
export function useLogin(target: string) {
  const [attempt, setAttempt] = useState<LoginAttempt>({ status: 'idle' });

  const run = useCallback(
    async (signIn: () => Promise<void>) => {
      setAttempt({ status: 'processing' });
      try {
        await signIn();
      } catch (err) {
        setAttempt({ status: 'error', message: messageOf(err) });
        return;
      }
      finishSignIn(target);
    },
    [target],
  );

  const login = useCallback(
    (values: LocalLogin) =>
      run(async () => {
        if (values.method === 'webauthn') await signInWithHardwareKey(values);
        else await signInWithPassword(values, values.method === 'otp' ? values.code.trim() : '');
        // Offered first next time on this browser.
        rememberMfaMethod(values.method);
      }),
    [run],
  );

  const loginWithPasskey = useCallback(() => run(() => signInWithPasskey()), [run]);

  const loginWithProvider = useCallback(
    (provider: AuthProvider) => {
      setAttempt({ status: 'processing' });
      // The round trip through the provider comes back signed in: count it as activity.
      writeLastActive(localStorage, Date.now());
      pageLocation.assign(providerLoginUrl(provider, target));
    },
    [target],
  );

  return { attempt, login, loginWithPasskey, loginWithProvider };
}
