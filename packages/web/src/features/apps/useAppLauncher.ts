import type { CreateAppSessionResponse, MfaChallenge } from '@postern/contracts';
import type { MfaReply } from '../../components/SessionMfaDialog';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api';
import { pageLocation } from '../../lib/pageLocation';
import { createAppSession, sessionMfaChallenge, type LaunchRequest } from './appsApi';

/** The launcher's route parameters (spec §2 `/web/launch/{fqdn}/{clusterId?}/{publicAddr?}/{arn?}`). */
export interface LaunchParams {
  fqdn: string;
  clusterId?: string;
  publicAddr?: string;
  arn?: string;
  /**
   * Where in the app to land (`?path=` of the launcher's URL): an app's host sends a visitor
   * without a session here with the path and query they asked for.
   */
  path?: string;
}

/**
 * Launching until the browser leaves for the app, or why it will not; in between, perhaps, the
 * per-session MFA check the roles ask for (require_session_mfa).
 */
export type LaunchState =
  | { status: 'launching' }
  | { status: 'mfa'; challenge: MfaChallenge; reply: MfaReply }
  | { status: 'error'; message: string };

export const mfaCancelledMessage =
  'This application needs a fresh two-factor check, which was cancelled.';

/** A path on the app's own origin (`/` and more, never `//host` or `/\host`) the proxy takes. */
const isLandingPath = (path: string) => path.length <= 4096 && /^\/(?![/\\])/.test(path);

/**
 * The body of `POST sessions/app`: the parts the route did not give are empty. A landing path goes
 * only when the launcher was given one on the app's own origin (the proxy checks it again); any
 * other is left out, and the app opens at `/`.
 */
export function launchRequest(params: LaunchParams): LaunchRequest {
  const request: LaunchRequest = {
    fqdn: params.fqdn,
    cluster_name: params.clusterId ?? '',
    public_addr: params.publicAddr ?? '',
    arn: params.arn ?? '',
  };
  if (params.path && isLandingPath(params.path)) request.path = params.path;
  return request;
}

/**
 * Where the browser may go with the session's answer: its `redirectUrl` only when that is an
 * absolute https: URL (http: too, when the console itself is served over http:) on the app's own
 * host, the answer's `fqdn`, without credentials in it. Anything else is refused, so the launcher
 * is never an open redirect. Returns the URL as parsed: the address checked is the one followed.
 */
export function appRedirectTarget(
  answer: Pick<CreateAppSessionResponse, 'fqdn' | 'redirectUrl'>,
  consoleProtocol: string,
): string | undefined {
  let url: URL;
  try {
    url = new URL(answer.redirectUrl);
  } catch {
    return undefined;
  }
  const schemeOk =
    url.protocol === 'https:' || (url.protocol === 'http:' && consoleProtocol === 'http:');
  // No user name or password: the exchange URL never carries any, and `user@host` misleads.
  if (!schemeOk || url.username || url.password || answer.fqdn === '') return undefined;
  return url.hostname === answer.fqdn.toLowerCase() ? url.href : undefined;
}

export const refusedRedirectMessage =
  'The server sent an address that is not this application’s, so it was not opened.';

/** What the launcher says when the session could not be made. */
export function launchErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 403) {
    return 'You do not have access to this application.';
  }
  if (error instanceof ApiError && error.status === 404) return 'Application not found.';
  return error instanceof Error ? error.message : String(error);
}

export interface LauncherDeps {
  /** Leaves for the app (a full page load, replacing the launcher in history). */
  navigate: (url: string) => void;
  /** How the console is served, `https:` or `http:`. */
  protocol: () => string;
}

const browserDeps: LauncherDeps = {
  navigate: (url) => pageLocation.replace(url),
  protocol: () => pageLocation.protocol(),
};

/**
 * Asks for a session on the app once per launch address, then sends the browser to the app's
 * own origin, which exchanges the one-time state for its cookie. The session never passes
 * through this origin; the redirect is checked first (`appRedirectTarget`).
 */
export function useAppLauncher(params: LaunchParams, deps: LauncherDeps = browserDeps) {
  const [state, setState] = useState<LaunchState>({ status: 'launching' });
  const { fqdn, clusterId, publicAddr, arn, path } = params;
  const launched = useRef<string | null>(null);

  useEffect(() => {
    const request = launchRequest({ fqdn, clusterId, publicAddr, arn, path });
    const key = JSON.stringify(request);
    // Once per address: another run of the effect (StrictMode, new deps) would make a second session.
    if (launched.current === key) return;
    launched.current = key;
    setState({ status: 'launching' });
    const current = () => launched.current === key;
    const fail = (error: unknown) => {
      if (current()) setState({ status: 'error', message: launchErrorMessage(error) });
    };
    const attempt = (extra: Partial<LaunchRequest>) =>
      createAppSession({ ...request, ...extra }).then((answer) => {
        if (!current()) return;
        const target = appRedirectTarget(answer, deps.protocol());
        if (target) deps.navigate(target);
        else setState({ status: 'error', message: refusedRedirectMessage });
      });
    // The roles may ask for a fresh check first: the server says so, and the answer goes along.
    const askForMfa = async () => {
      const challenge = await sessionMfaChallenge(request.fqdn);
      if (!current()) return;
      const reply: MfaReply = {
        answer: (mfa_response) => {
          setState({ status: 'launching' });
          // A refused answer says why (a wrong or used code), not "no access".
          attempt({ mfa_response }).catch((error: unknown) => {
            if (!current()) return;
            const message = error instanceof Error ? error.message : String(error);
            setState({ status: 'error', message });
          });
        },
        cancel: () => setState({ status: 'error', message: mfaCancelledMessage }),
      };
      setState({ status: 'mfa', challenge, reply });
    };
    attempt({}).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'mfa_required') askForMfa().catch(fail);
      else fail(error);
    });
  }, [fqdn, clusterId, publicAddr, arn, path, deps]);

  return state;
}
