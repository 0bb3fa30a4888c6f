import type { Duplex } from 'node:stream';
import { apiPaths, desktopConnectQuerySchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { createWebSocketStream, type WebSocket } from 'ws';
import { ApiError } from '../../../errors.js';
import {
  SessionMfa,
  sessionMfaNeeded,
  webSessionMfaSubject,
} from '../../../identity/mfa/session-mfa.js';
import {
  identifyByCredentials,
  sessionCookieName,
  type GuardDeps,
} from '../../../http/request-identity.js';
import { answerSession, authenticateFirstFrame } from '../../../modules/terminal/socket-auth.js';
import { shownAddr, type DesktopRecord } from '../desktop-kind.js';
import type { DesktopAccess } from './desktop-access.js';
import type { DesktopSessions } from './desktop-sessions.js';
import { inBandSocketRoute } from '../../../http/in-band-socket.js';

export interface DesktopConnectRoutesOptions {
  access: DesktopAccess;
  sessions: DesktopSessions;
  /** A stream to the desktop: a TCP connection, or one through its agent's tunnel. */
  dial(desktop: DesktopRecord): Promise<Duplex>;
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  clusterName: string;
  /** Per-session MFA for users whose roles ask for it. */
  sessionMfa: Pick<SessionMfa, 'verify'>;
}

/** A WebSocket close reason holds at most 123 bytes. */
const closeReason = (text: string) => Buffer.from(text).subarray(0, 120).toString();
/** Policy violation: refused before a session (not signed in, no access, a lock). */
const refusedCode = 1008;
/** The desktop could not be reached or broke the handshake. */
const failedCode = 1011;

type ConnectRequest = {
  Params: { clusterId: string; desktopName: string };
  Querystring: Record<string, string>;
};

/**
 * The desktop connect WebSocket (spec §7): the upgrade is public, since the caller proves itself
 * in-band (the upgrade's cookie plus the bearer of the first text frame, answered with
 * `create_session_response`), so no token is ever in a URL. Then the roles, logins and locks
 * are judged, the desktop is dialled and signed in to by the proxy, and only then is the browser
 * told `ok`; from there the socket carries RFB (docs/desktops.md).
 */
export async function desktopConnectRoutes(
  app: FastifyInstance,
  options: DesktopConnectRoutesOptions,
): Promise<void> {
  app.get<ConnectRequest>(
    apiPaths.patterns.desktopConnect,
    inBandSocketRoute(options.clusterName),
    (socket, request) => {
      const cookie = request.cookies[sessionCookieName];
      void connect(options, socket, {
        name: request.params.desktopName,
        query: request.query,
        remoteAddr: request.ip,
        origin: request.headers.origin,
        authenticate: (bearer) => identifyByCredentials(options.guard, cookie, bearer),
      }).catch((error: unknown) => {
        request.log.error({ err: error }, 'desktop connection failed');
        socket.close(failedCode, 'internal error');
      });
    },
  );
}

interface ConnectRequestInfo {
  name: string;
  query: Record<string, string>;
  remoteAddr: string;
  /** The upgrade's Origin, which a key's answer must name. */
  origin: string | undefined;
  authenticate: Parameters<typeof authenticateFirstFrame>[1];
}

async function connect(
  options: DesktopConnectRoutesOptions,
  socket: WebSocket,
  request: ConnectRequestInfo,
): Promise<void> {
  const caller = await authenticateFirstFrame(socket, request.authenticate);
  if (!caller) return;
  let { identity } = caller;
  const refuse = (message: string, code = refusedCode) => {
    answerSession(socket, 'error', message);
    socket.close(code, closeReason(message));
  };
  const query = desktopConnectQuerySchema.safeParse(request.query);
  if (!query.success) return refuse(query.error.issues[0]?.message ?? 'bad query');
  const login = query.data.username;
  // require_session_mfa: the page connects again with the answer to a challenge for this desktop
  // (a trusted root's user answers the root's, which the root vouches for here: leaf-checks.ts).
  if (SessionMfa.requiredFor(identity)) {
    if (!caller.mfaResponse) {
      const message = sessionMfaNeeded('this desktop');
      answerSession(socket, 'error', message, 'mfa_required');
      return socket.close(refusedCode, closeReason(message));
    }
    const subject = webSessionMfaSubject(identity.session.id, `desktop:${request.name}`);
    let checkedWith: string | undefined;
    try {
      checkedWith = await options.sessionMfa.verify(
        identity.user,
        subject,
        caller.mfaResponse,
        request.origin,
      );
    } catch (error) {
      if (error instanceof ApiError) return refuse(error.message);
      throw error;
    }
    identity = { ...identity, mfaVerified: true };
    // The device that answered: a lock on it ends the session it opens.
    if (checkedWith) identity.sessionMfaDevice = checkedWith;
  }

  const grant = options.access.open(identity, request.name, login);
  if ('refused' in grant) {
    const addr = grant.code === 404 ? '' : request.name;
    options.sessions.denied(identity.user, request.name, addr, login, grant.refused);
    return refuse(grant.refused);
  }
  const { spec } = grant.desktop;
  if (spec.protocol === 'rdp' && spec.rdp_passwords?.[login] === undefined) {
    // The proxy signs in to RDP desktops with the login's stored password: without one there
    // is nothing to try (and no Windows logon screen is shown instead).
    const message = `no password is stored for the login ${login} on desktop ${request.name}`;
    options.sessions.denied(identity.user, request.name, shownAddr(grant.desktop), login, message);
    return refuse(message, failedCode);
  }

  let desktop: Duplex;
  try {
    desktop = await options.dial(grant.desktop);
  } catch (error) {
    const message = `cannot reach desktop ${request.name}: ${(error as Error).message}`;
    options.sessions.denied(identity.user, request.name, shownAddr(grant.desktop), login, message);
    return refuse(message, failedCode);
  }
  if (socket.readyState !== socket.OPEN) return void desktop.destroy();

  let ready = false;
  const browser = createWebSocketStream(socket);
  browser.on('error', () => undefined);
  try {
    await options.sessions.run(grant, {
      browser,
      desktop,
      remoteAddr: request.remoteAddr,
      size: { width: query.data.width ?? 1280, height: query.data.height ?? 800 },
      onReady: () => {
        ready = true;
        answerSession(socket, 'ok');
      },
      closeBrowser: (reason) => {
        if (socket.readyState === socket.OPEN) socket.close(1000, closeReason(reason));
      },
    });
  } catch (error) {
    const message = (error as Error).message;
    if (!ready) return refuse(message, failedCode);
    if (socket.readyState === socket.OPEN) socket.close(failedCode, closeReason(message));
  }
}
