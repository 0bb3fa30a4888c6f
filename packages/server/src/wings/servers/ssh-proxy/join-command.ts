import { marksOf } from '../../../access-control/locks/lock-watcher.js';
import { participantModes, type ParticipantMode } from '@postern/contracts';
import type { ServerChannel, Session } from 'ssh2';
import { accessDenied, ApiError } from '../../../errors.js';
import { rootSessionMfaRefusal } from '../../../identity/mfa/session-mfa.js';
import type { Requester, TerminalService } from '../terminal/terminal.service.js';
import { certificateCredential } from '../../../access-control/access/credential-revocation.js';
import { SshChannelParty } from './ssh-channel-party.js';
import type { SshProxyDeps } from './ssh-proxy.js';

/** `ssh -t you@proxy join <session id> [observer|moderator|peer]`, as `postern join` runs it. */
const joinCommand = /^join\s+([0-9a-f-]{36})(?:\s+(\w+))?\s*$/;
const ctrlC = 0x03;

interface ProxySessionDeps {
  terminals: TerminalService;
  requester: () => Requester;
  /**
   * A root user through the root (leaf-proxy-session.ts) whose roles there ask for a per-session
   * MFA check: the root's name. A join needs a certificate naming it (`join:<sid>`).
   */
  rootSessionMfa?: string;
}

/**
 * A session on the SSH proxy itself (not through it to a node): `join` attaches the client to a
 * live session this proxy holds, in the mode asked (the join_sessions rules decide); anything
 * else is told how the proxy is used.
 */
export function serveProxySession(session: Session, deps: ProxySessionDeps): void {
  // A joiner's terminal follows the session's size; only the owner's resizes it.
  session.on('pty', (accept) => accept?.());
  session.on('window-change', (accept) => accept?.());
  session.on('shell', (accept) => explain(accept()));
  session.on('exec', (accept, _reject, info) => {
    const channel = accept();
    const match = joinCommand.exec(info.command);
    if (!match) return explain(channel);
    const mode = match[2];
    if (mode !== undefined && !participantModes.includes(mode as ParticipantMode)) {
      return fail(channel, `unknown mode ${mode}: observer, moderator or peer`);
    }
    try {
      join(channel, match[1]!, mode as ParticipantMode | undefined, deps);
    } catch (error) {
      fail(channel, error instanceof ApiError ? error.message : 'internal error');
    }
  });
}

function join(
  channel: ServerChannel,
  sid: string,
  asked: ParticipantMode | undefined,
  deps: ProxySessionDeps,
): void {
  const signedIn = deps.requester();
  // `postern join` signs in with a per-session MFA certificate naming this session, when the
  // roles ask for the check (require_session_mfa).
  const mfaVerified = signedIn.sessionMfaTargets?.includes(`join:${sid}`) === true;
  if (deps.rootSessionMfa && !mfaVerified)
    throw accessDenied(rootSessionMfaRefusal(deps.rootSessionMfa, 'postern join asks for it'));
  const requester = { ...signedIn, ...(mfaVerified ? { mfaVerified } : {}) };
  const { session, mode } = deps.terminals.joinable(requester, sid, asked);
  const party: SshChannelParty = new SshChannelParty(
    channel,
    requester.user,
    requester.roles,
    mode,
    (bytes) => session.ack(party.id, bytes),
    () => undefined,
    marksOf(requester),
  );
  const stopGuard = deps.terminals.guardJoined(requester, session, party);
  channel.stderr.write(
    `Postern: joined session ${sid} as ${mode}.` +
      (mode === 'peer'
        ? ''
        : ' Ctrl-C leaves' + (mode === 'moderator' ? ', t ends the session' : '')) +
      '\r\n',
  );
  channel.on('data', (data: Buffer) => {
    // Observers and moderators cannot type; Ctrl-C is how they leave (the reference's keys).
    if (mode !== 'peer' && data.includes(ctrlC)) return session.leave(party.id, 'left');
    session.input(party.id, data);
  });
  channel.on('close', () => {
    stopGuard();
    session.leave(party.id, 'disconnected');
  });
  session.join(party).catch((error: unknown) => {
    stopGuard();
    fail(channel, error instanceof ApiError ? error.message : 'internal error');
  });
}

function fail(channel: ServerChannel, message: string): void {
  channel.stderr.write(`Postern: ${message}\r\n`);
  channel.exit(1);
  channel.end();
}

/** `ssh alice@proxy:3023` alone: say how the proxy is used instead of hanging up silently. */
function explain(channel: ServerChannel): void {
  channel.stderr.write(
    'Postern: this is an SSH proxy; reach a server through it with\r\n' +
      '  ssh -J <you>@<this proxy>:<port> <login>@<server>\r\n' +
      'or run `postern login` once, then plain `ssh <login>@<server>`;\r\n' +
      'join a live session with `postern join <session id>`.\r\n',
  );
  channel.exit(1);
  channel.end();
}

/** Who signed in to the SSH proxy, from their certificate. */
export interface SignedInUser {
  name: string;
  roles: string[];
  accessRequests: string[];
  validAfter: Date;
  validBefore: Date;
  /** A per-session MFA certificate's sessions (`join:<sid>` for `postern join`). */
  sessionMfaTargets?: string[];
  /** The MFA device the certificate's login was proven with. */
  mfaDevice?: string;
  /** On a per-session MFA certificate: the device that answered its check. */
  sessionMfaDevice?: string;
  /** On a bot's certificate: its instance. */
  botInstance?: string;
}

/** The signed-in user as a requester judged against the current roles (for `join`). */
export function proxySessionRequester(
  user: SignedInUser,
  deps: Pick<SshProxyDeps, 'requesterFor'>,
): () => Requester {
  return () => {
    const { name, roles, accessRequests } = user;
    const current = deps.requesterFor(name, roles, accessRequests);
    return {
      user: name,
      roles: current.roles,
      roleSet: current.roleSet,
      expiresAt: user.validBefore.getTime(),
      ...(user.sessionMfaTargets ? { sessionMfaTargets: user.sessionMfaTargets } : {}),
      ...(user.mfaDevice ? { mfaDevice: user.mfaDevice } : {}),
      ...(user.sessionMfaDevice ? { sessionMfaDevice: user.sessionMfaDevice } : {}),
      ...(user.botInstance ? { botInstance: user.botInstance } : {}),
      subject: {
        user: name,
        roles,
        credential: certificateCredential(user.validAfter, user.mfaDevice),
        hadRecord: current.hasRecord,
        accessRequests,
      },
    };
  };
}
