import type { Client, ClientChannel, ServerChannel } from 'ssh2';
import { emitAudit } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import type { ProxiedChannel } from './proxied-channel.js';

/**
 * A command (or a shell) without a terminal, `ssh node cmd` or `scp -O`: bytes pass through
 * untouched in both directions with the SSH windows as backpressure, stdout and stderr stay
 * apart, end of input is passed on, and the exit status comes back, so pipes and scripts work
 * exactly as against the node itself. Not a live session (nothing to watch or join) and not
 * recorded; audited as a non-interactive session and its exec event.
 */
export async function relayCommand(
  channel: ServerChannel,
  client: Client,
  request: { command?: string; env: Record<string, string> },
  proxied: ProxiedChannel,
  audit: AuditStore,
): Promise<void> {
  const { command, env } = request;
  let remote: ClientChannel;
  try {
    remote = await new Promise<ClientChannel>((resolve, reject) => {
      const done = (error: Error | undefined, stream: ClientChannel) =>
        error ? reject(error) : resolve(stream);
      if (command === undefined) client.shell(false, { env }, done);
      else client.exec(command, { env }, done);
    });
  } catch (error) {
    client.end();
    channel.stderr.write(`Postern: ${(error as Error).message}\r\n`);
    channel.exit(1);
    channel.end();
    return;
  }
  void emitAudit(audit, 'T2000I', {
    ...proxied.fields(),
    interactive: false,
    ...(command !== undefined ? { command } : {}),
  });
  channel.pipe(remote);
  remote.pipe(channel, { end: false });
  remote.stderr.pipe(channel.stderr, { end: false });
  let exit: { code?: number; signal?: string } = {};
  remote.on('exit', (code: number | null, signal?: string) => {
    exit = signal ? { signal } : { code: code ?? 0 };
  });
  remote.on('close', () => {
    if (exit.signal) channel.exit(exit.signal.replace(/^SIG/, ''), false, '');
    else channel.exit(exit.code ?? 1);
    channel.end();
    client.end();
    const ok = exit.code === 0;
    const reason = exit.signal
      ? `exited on signal ${exit.signal}`
      : `exited with code ${exit.code ?? 'unknown'}`;
    if (command !== undefined) {
      void emitAudit(audit, ok ? 'T3002I' : 'T3002E', {
        ...proxied.fields(),
        command,
        exitCode: String(exit.code ?? ''),
        ...(ok ? {} : { exitError: reason }),
      });
    }
    void emitAudit(audit, 'T2004I', proxied.endFields(reason));
  });
  // The client went away first: stop the program (SIGHUP, as sshd does) and hang up.
  channel.on('close', () => {
    remote.close();
    client.end();
  });
}
