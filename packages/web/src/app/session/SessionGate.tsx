import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import type { BearerToken } from '../../api/credentials';
import { PageLoader } from '../../components/PageLoader';
import { currentPageUri, loginUrl } from '../navigation';
import { browserSessionEnv, startSession, type SessionEnv } from './session';

const SessionContext = createContext<BearerToken | null>(null);

/** The session's token, for code under the gate (renewal and logout will hang off this). */
export function useSessionToken(): BearerToken {
  const token = useContext(SessionContext);
  if (!token) throw new Error('useSessionToken needs a SessionGate');
  return token;
}

interface Props {
  children: ReactNode;
  env?: () => SessionEnv;
  /** A full page load, so the server can answer with a fresh page (and token) after sign-in. */
  redirect?: (url: string) => void;
}

/**
 * Wraps every private route: reads the session once on start and, without a valid one, sends the
 * browser to the login page with the current page as `redirect_uri`.
 */
export function SessionGate({
  children,
  env = browserSessionEnv,
  redirect = (url) => window.location.assign(url),
}: Props) {
  const [token] = useState(() => startSession(env()));
  const location = useLocation();
  const target = token ? undefined : loginUrl(currentPageUri(location));

  useEffect(() => {
    if (target) redirect(target);
    // Only the start-up decision redirects; later checks belong to the session checker.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (!token) return <PageLoader label="Redirecting to sign in" />;
  return <SessionContext.Provider value={token}>{children}</SessionContext.Provider>;
}
