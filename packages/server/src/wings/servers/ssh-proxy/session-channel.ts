import { marksOf } from '../../../access-control/locks/lock-watcher.js';
import type { Connection, ServerChannel, Session } from 'ssh2';
import { assertUnmoderated } from '../terminal/terminal.service.js';
import { emitAudit } from '../../../modules/audit/emit.js';
import { accessDenied, ApiError } from '../../../errors.js';
import { isScpCommand } from '../../../ssh/scp-command.js';
import { capOutgoingPacketSize } from '../../../ssh/ssh2-internals.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import { fileCopyRefusal } from '../file-transfer/file-transfer.service.js';
import type { LiveSession } from '../../../modules/sessions/live-session.js';
import type { RecordingPolicy } from '../../../modules/sessions/session-recording.js';
import type { Reach, Requester, TerminalService } from '../terminal/terminal.service.js';
import { relayCommand } from './command-relay.js';
import { ForwardedAgent } from './forwarded-agent.js';
import { ProxiedChannel } from './proxied-channel.js';
import { relaySftp } from './sftp-relay.js';
import { SshChannelParty } from './ssh-channel-party.js';

/** What one logged-in inner connection knows: who, which server as which login, and how. */
export interface InnerLogin {
  requester: Requester;
  reach: Reach;
  remoteAddr: string;
  terminals: TerminalService;
  audit: AuditStore;
  now: () => number;
  log: (message: string, fields?: object) => void;
  /** The client's inner connection: a forwarded agent is reached through it. */
  connection: Connection;
  /** Where commands without a terminal are recorded (terminal sessions: the session hub). */
  recordings?: RecordingPolicy;
  /** The largest data packet that, encrypted, still fits one packet of the jump channel. */
  maxPacketSize?: number;
  /** The session channels open on this connection: told why when its access is revoked. */
  channels: Set<ServerChannel>;
  /** Sessions open on the client's whole connection to the proxy (max_sessions). */
  sessions: { open: number };
}

/** Only these come from the client's environment, as with OpenSSH's usual `AcceptEnv`. */
const acceptedEnv = /^(LANG|LC_[A-Z_]+)$/;
const maxTerminalSize = 10_000;

/**
 * One "session" channel of a client reaching a node through the proxy. With a terminal (pty-req)
 * the shell or command becomes a live session in the hub, the same as the browser's: recorded,
 * listed in Active Sessions and joinable from the console. Without one, a command is relayed
 * byte for byte (command-relay.ts) and the sftp subsystem goes through the SFTP auditor.
 */
export function serveProxiedSession(session: Session, login: InnerLogin): void {
  const env: Record<string, string> = {};
  let terminal: { term: string; cols: number; rows: number } | undefined;
  let live: { session: LiveSession; party: SshChannelParty } | undefined;
  let started = false;
  // `ssh -A`: the node gets the client's agent, when the roles allow forward_agent.
  let agent: ForwardedAgent | undefined;

  session.on('pty', (accept, reject, info) => {
    if (started) return reject?.();
    terminal = {
      term: info.term || 'xterm',
      cols: clamp(info.cols, 80),
      rows: clamp(info.rows, 24),
    };
    accept?.();
  });
  session.on('window-change', (accept, _reject, info) => {
    if (terminal)
      terminal = {
        ...terminal,
        cols: clamp(info.cols, terminal.cols),
        rows: clamp(info.rows, terminal.rows),
      };
    if (live && terminal) live.session.resize(live.party.id, terminal.cols, terminal.rows);
    accept?.();
  });
  session.on('auth-agent', (accept, reject) => {
    if (started || !login.reach.options.forwardAgent) return reject?.();
    agent = new ForwardedAgent(login.connection);
    accept?.();
  });
  session.on('env', (accept, reject, info) => {
    if (started || !acceptedEnv.test(info.key) || info.val.length > 1024) return reject?.();
    env[info.key] = info.val;
    accept?.();
  });

  const begin = (channel: ServerChannel, run: () => Promise<void>, fileCopy = false) => {
    started = true;
    const refusal = refusalOf(login, fileCopy);
    if (!refusal) {
      login.sessions.open++;
      login.channels.add(channel);
      channel.on('close', () => {
        login.channels.delete(channel);
        login.sessions.open--;
      });
    }
    const attempt = refusal ? () => refuse(login, refusal) : run;
    attempt().catch((error: unknown) => {
      const message = error instanceof ApiError ? error.message : 'internal error';
      if (!(error instanceof ApiError))
        login.log('ssh proxy session failed', { error: String(error) });
      channel.stderr.write(`Postern: ${message}\r\n`);
      channel.exit(1);
      channel.end();
    });
  };

  const interactive = async (
    channel: ServerChannel,
    command: string,
    size: { cols: number; rows: number },
  ) => {
    const { requester, reach } = login;
    const liveSession = await login.terminals.start(
      requester,
      {
        serverId: reach.node.id,
        login: reach.login,
        size: { w: size.cols, h: size.rows },
        command,
        traceId: '',
        remoteAddr: login.remoteAddr,
      },
      agent,
    );
    const party: SshChannelParty = new SshChannelParty(
      channel,
      requester.user,
      requester.roles,
      'peer',
      (bytes) => liveSession.ack(party.id, bytes),
      () => liveSession.exit,
      marksOf(requester),
    );
    live = { session: liveSession, party };
    channel.on('data', (data: Buffer) => liveSession.input(party.id, data));
    channel.on('close', () => liveSession.leave(party.id, 'disconnected'));
    await liveSession.join(party);
  };

  const relayed = async (channel: ServerChannel, kind: 'command' | 'sftp', command?: string) => {
    // Moderators watch a terminal; a command without one, scp or sftp would pass unseen.
    assertUnmoderated(login.requester, kind === 'sftp' ? 'sftp' : 'a command without a terminal');
    const request = {
      serverId: login.reach.node.id,
      login: login.reach.login,
      traceId: '',
      remoteAddr: login.remoteAddr,
    };
    const client = await login.terminals.dial(login.requester, login.reach, request, agent);
    const proxied = new ProxiedChannel(login.requester, login.reach, login.remoteAddr, login.now);
    if (kind === 'sftp') return relaySftp(channel, client, proxied, login.audit);
    return relayCommand(channel, client, { command, env }, proxied, login);
  };

  session.on('shell', (accept, reject) => {
    if (started) return reject?.();
    const channel = accept();
    if (terminal) begin(channel, () => interactive(channel, '', terminal!));
    else begin(channel, () => relayed(channel, 'command'));
  });
  session.on('exec', (accept, reject, info) => {
    if (started) return reject?.();
    const channel = accept();
    const scp = isScpCommand(info.command);
    if (terminal) begin(channel, () => interactive(channel, info.command, terminal!), scp);
    else begin(channel, () => relayed(channel, 'command', info.command), scp);
  });
  session.on('subsystem', (accept, reject, info) => {
    if (started || info.name !== 'sftp') return reject?.();
    const channel = accept();
    if (login.maxPacketSize) capOutgoingPacketSize(channel, login.maxPacketSize);
    begin(channel, () => relayed(channel, 'sftp'), true);
  });
}

/** Why this session may not start: max_sessions reached, or file copying refused. */
function refusalOf(login: InnerLogin, fileCopy: boolean): string | undefined {
  const { options } = login.reach;
  if (fileCopy && !options.sshFileCopy) return fileCopyRefusal;
  if (options.maxSessions > 0 && login.sessions.open >= options.maxSessions) {
    return `too many sessions on this connection: max_sessions allows ${options.maxSessions}`;
  }
  return undefined;
}

/** A refused session: audited as a rejected session (T1006W), then told to the client. */
async function refuse(login: InnerLogin, reason: string): Promise<void> {
  const { node } = login.reach;
  await emitAudit(login.audit, 'T1006W', {
    user: login.requester.user,
    login: login.reach.login,
    server_id: node.id,
    server_hostname: node.hostname,
    reason,
    'addr.remote': login.remoteAddr,
  });
  throw accessDenied(reason);
}

function clamp(value: number, fallback: number): number {
  return Number.isInteger(value) && value > 0 ? Math.min(value, maxTerminalSize) : fallback;
}
