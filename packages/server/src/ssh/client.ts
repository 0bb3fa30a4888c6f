import type { Duplex } from 'node:stream';
import ssh2, { type Client, type ClientChannel, type SFTPWrapper } from 'ssh2';
import { certificateAuthHandler, type CertificateKey } from './certificate-auth.js';
import { fingerprint } from './keys.js';

export interface ConnectToNodeOptions {
  /** An open stream to the node (a reverse tunnel, a jump); otherwise host and port are dialled. */
  sock?: Duplex;
  host?: string;
  port?: number;
  login: string;
  key: CertificateKey;
  /**
   * Decides on the node's host key (its SSH wire blob). ssh2 cannot take host certificates, so
   * this sees the plain key; check it against what the inventory recorded for the node.
   */
  verifyHostKey: (keyBlob: Buffer) => boolean | Promise<boolean>;
  readyTimeoutMs?: number;
  /**
   * SSH keepalives once logged in: a server that leaves three in a row unanswered is taken for
   * gone, and the client emits an error of level `client-timeout`, then closes. Absent: none.
   */
  keepaliveIntervalMs?: number;
  /**
   * Agent forwarding (`ssh -A` through the proxy): sessions on this connection ask the node to
   * forward the agent, and the node's agent channels are served by this agent.
   */
  agent?: ssh2.BaseAgent;
}

export interface PtyOptions {
  cols: number;
  rows: number;
  term: string;
}

/**
 * Opens an SSH connection to a node and logs in as `login` with an OpenSSH user certificate.
 * Resolves once authenticated; rejects with a one-line, readable Error otherwise.
 */
export function connectToNode(opts: ConnectToNodeOptions): Promise<Client> {
  // ssh2 is CommonJS: Node's ESM loader sees only its default export.
  const client = new ssh2.Client();
  const target = opts.sock ? 'the node' : `${opts.host ?? 'localhost'}:${opts.port ?? 22}`;
  let refusedHostKey: string | undefined;
  // A server may say why it refuses a login in a userauth banner (our node service does).
  const banners: string[] = [];
  client.on('banner', (message: string) => banners.push(message.trim()));

  return new Promise<Client>((resolve, reject) => {
    const fail = (error: Error) => {
      cleanup();
      client.end();
      reject(new Error(describeFailure(error, target, opts.login, refusedHostKey, banners)));
    };
    const closedEarly = () => fail(new Error('connection closed before login completed'));
    const cleanup = () => {
      client.off('error', fail).off('close', closedEarly);
      // After login, callers watch 'close'; an 'error' with no listener would crash the process.
      client.on('error', () => {});
    };
    client.once('ready', () => {
      cleanup();
      // Keystrokes and SFTP answers are small packets: Nagle's delay would stall them.
      client.setNoDelay(true);
      resolve(client);
    });
    client.on('error', fail).on('close', closedEarly);

    try {
      client.connect({
        ...(opts.sock ? { sock: opts.sock } : { host: opts.host, port: opts.port ?? 22 }),
        ...(opts.agent ? { agent: opts.agent, agentForward: true } : {}),
        username: opts.login,
        readyTimeout: opts.readyTimeoutMs ?? 20_000,
        // The third missed keepalive ends it: ssh2 gives up after keepaliveCountMax more.
        ...(opts.keepaliveIntervalMs
          ? { keepaliveInterval: opts.keepaliveIntervalMs, keepaliveCountMax: 2 }
          : {}),
        authHandler: certificateAuthHandler(client, opts.login, opts.key),
        hostVerifier: (keyBlob: Buffer, verify: (accepted: boolean) => void) => {
          Promise.resolve()
            .then(() => opts.verifyHostKey(keyBlob))
            .then(
              (accepted) => accepted,
              () => false,
            )
            .then((accepted) => {
              if (!accepted) refusedHostKey = fingerprint(keyBlob);
              verify(accepted);
            });
        },
      });
    } catch (error) {
      fail(error as Error);
    }
  });
}

/** A shell on a PTY of the given size; `env` is offered to the node (sshd keeps what AcceptEnv allows). */
export function openShell(
  client: Client,
  opts: PtyOptions & { env?: Record<string, string> },
): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.shell(
      { cols: opts.cols, rows: opts.rows, term: opts.term },
      { env: opts.env ?? {} },
      (error, channel) => (error ? reject(error) : resolve(channel)),
    );
  });
}

/** Runs one command; with `pty` it gets a terminal (stdout and stderr merged, as on any tty). */
export function openExec(
  client: Client,
  command: string,
  opts: { pty?: PtyOptions; env?: Record<string, string> } = {},
): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    const options = {
      ...(opts.pty ? { pty: opts.pty } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    };
    client.exec(command, options, (error, channel) => (error ? reject(error) : resolve(channel)));
  });
}

/** The node's `sftp` subsystem (OpenSSH's, or the node service's, which runs the same binary). */
export function openSftp(client: Client): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => {
    client.sftp((error, sftp) => (error ? reject(error) : resolve(sftp)));
  });
}

function describeFailure(
  error: Error,
  target: string,
  login: string,
  refusedHostKey: string | undefined,
  banners: string[],
) {
  if (refusedHostKey) return `refused the host key of ${target} (${refusedHostKey})`;
  if (/authentication methods failed/i.test(error.message)) {
    const why =
      banners.length > 0
        ? banners.join('; ').replace(/^Postern: /, '')
        : 'the certificate was not accepted';
    return `${target} refused the login as ${login}: ${why.replace(/\s+/g, ' ')}`;
  }
  return `SSH connection to ${target} failed: ${error.message}`;
}
