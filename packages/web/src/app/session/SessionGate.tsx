import {
  createContext,
  useContext,
  useEffect,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { useLocation } from 'react-router';
import { setUnauthorizedHandler } from '../../api';
import type { BearerToken } from '../../api/credentials';
import { PageLoader } from '../../components/PageLoader';
import { pageLocation } from '../../lib/pageLocation';
import { currentPageUri, loginUrl } from '../navigation';
import { browserSessionEnv, startSession, type SessionEnv } from './session';
import { webSessionApi } from './sessionApi';
import {
  browserClock,
  createSessionController,
  webLocksRenewLock,
  type SessionController,
} from './sessionController';

const SessionContext = createContext<SessionController | null>(null);

/** The running session, for code under the gate (the user menu's Logout). */
export function useSession(): SessionController {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession needs a SessionGate');
  return session;
}

/** The session's current token; follows renewals made by this tab or another one. */
export function useSessionToken(): BearerToken | null {
  const session = useSession();
  return useSyncExternalStore(session.subscribe, session.token);
}

/** The real thing: browser storage, timers and events, the web API, full page navigations. */
export function createBrowserSessionController(): SessionController {
  return createSessionController({
    storage: localStorage,
    clock: browserClock,
    win: window,
    doc: document,
    api: webSessionApi,
    navigate: (url) => pageLocation.assign(url),
    currentPage: () => pageLocation.current(),
    renewLock: webLocksRenewLock(),
    onUnauthorized: (handler) => setUnauthorizedHandler(handler),
  });
}

interface Props {
  children: ReactNode;
  env?: () => SessionEnv;
  /** A full page load, so the server can answer with a fresh page (and token) after sign-in. */
  redirect?: (url: string) => void;
  /** Builds the session lifecycle once a valid token is found. */
  createController?: () => SessionController;
}

/**
 * Wraps every private route: reads the session once on start and, without a valid one, sends the
 * browser to the login page with the current page as `redirect_uri`. With one, it runs the
 * session lifecycle (renewal, status poll, idle logout, cross-tab logout) while mounted.
 */
export function SessionGate({
  children,
  env = browserSessionEnv,
  redirect = (url) => pageLocation.assign(url),
  createController = createBrowserSessionController,
}: Props) {
  const [session] = useState(() => (startSession(env()) ? createController() : null));
  const location = useLocation();
  const target = session ? undefined : loginUrl(currentPageUri(location));

  useEffect(() => {
    if (target) redirect(target);
    // Only the start-up decision redirects; later checks belong to the session controller.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    if (!session) return;
    session.start();
    return () => session.stop();
  }, [session]);

  if (!session) return <PageLoader label="Redirecting to sign in" />;
  return (
    <SessionContext.Provider value={session}>
      <SignedIn>{children}</SignedIn>
    </SessionContext.Provider>
  );
}

/** Once the token is gone (logout on its way), the private page is no longer rendered. */
function SignedIn({ children }: { children: ReactNode }) {
  const token = useSessionToken();
  return token ? children : <PageLoader label="Signing out" />;
}
