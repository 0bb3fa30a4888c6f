import { useState } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { signInTarget } from '../../app/navigation';
import { browserSessionEnv, startSession } from '../../app/session/session';
import { clearLockedNotice, readLockedNotice } from '../../app/session/storage';
import { pageLocation } from '../../lib/pageLocation';
import { readLastMfaMethod } from './lastMfaMethod';
import { LoginView } from './LoginView';
import { useLogin } from './useLogin';

/**
 * `/web/login`. This chunk (with its static imports) is what bench/bundle-size.mjs holds to the
 * login route's budget: keep heavy dependencies out of it.
 */
export function LoginPage() {
  const { auth } = useClientConfig();
  const [search] = useSearchParams();
  // Only a page of ours survives; anything else signs in to the root route.
  const target = signInTarget(search.get('redirect_uri'), pageLocation.origin());
  // The server put a bearer in this page (its session cookie is valid), or one is stored: the
  // user is signed in already and goes where the sign-in would have taken them.
  const [signedIn] = useState(() => startSession(browserSessionEnv()) !== null);
  const [lastMfaMethod] = useState(() => readLastMfaMethod());
  // Written only by this console when a lock ended the session, never taken from the URL.
  const [lockedNotice, setLockedNotice] = useState(() => readLockedNotice(localStorage));
  const { attempt, login, loginWithPasskey, loginWithProvider } = useLogin(target);
  if (signedIn) return <Navigate to={target} replace />;
  return (
    <LoginView
      auth={auth}
      attempt={attempt}
      lastMfaMethod={lastMfaMethod}
      lockedNotice={lockedNotice}
      onDismissLockedNotice={() => {
        clearLockedNotice(localStorage);
        setLockedNotice(undefined);
      }}
      onLogin={(values) => void login(values)}
      onPasskey={() => void loginWithPasskey()}
      onProvider={loginWithProvider}
    />
  );
}
