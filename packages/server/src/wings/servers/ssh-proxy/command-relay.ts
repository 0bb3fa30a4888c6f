import { sessionEndReasons } from '@postern/contracts';
import type { Client, ClientChannel, ServerChannel } from 'ssh2';
import { emitAuditInBackground } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import type { RecordingPolicy } from '../../../modules/sessions/session-recording.js';
import { CommandRecording } from './command-recording.js';
import type { ProxiedChannel } from './proxied-channel.js';

/**
 * A command (or a shell) without a terminal, `ssh node cmd` or `scp -O`: bytes pass through
 * untouched in both directions with the SSH windows as backpressure, stdout and stderr stay
 * apart, end of input is passed on, and the exit status comes back, so pipes and scripts work
 * exactly as against the node itself. Not a live session (nothing to watch or join); its output
 * is recorded (command-recording.ts) and it is audited as a non-interactive session and its
 * exec event.
 */
export async function relayCommand(
  channel: ServerChannel,
  client: Client,
  request: { command?: string; env: Record<string, string> },
  proxied: ProxiedChannel,
  deps: { audit: AuditStore; recordings?: RecordingPolicy },
): Promise<void> {
  const { command, env } = request;
  const { audit } = deps;
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
  emitAuditInBackground(audit, 'T2000I', {
    ...proxied.fields(),
    interactive: false,
    ...(command !== undefined ? { command } : {}),
  });
  const recording = CommandRecording.start(
    proxied,
    command ?? '(shell without a terminal)',
    deps.recordings,
    proxied.reach.options.recordSession.ssh,
    (reason, endCommand) => {
      emitAuditInBackground(audit, 'TPOS030E', { ...proxied.fields(), reason });
      if (!endCommand) return;
      channel.stderr.write(
        `Postern: session recording failed: ${reason}; the command was ended\r\n`,
      );
      remote.close();
    },
  );
  channel.pipe(remote);
  remote.pipe(channel, { end: false });
  remote.stderr.pipe(channel.stderr, { end: false });
  if (recording) {
    remote.on('data', (chunk: Buffer) => recording.stdoutData(chunk));
    remote.stderr.on('data', (chunk: Buffer) => recording.stderrData(chunk));
  }
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
      ? sessionEndReasons.signalled(exit.signal)
      : sessionEndReasons.exited(exit.code ?? 'unknown');
    if (command !== undefined) {
      emitAuditInBackground(audit, ok ? 'T3002I' : 'T3002E', {
        ...proxied.fields(),
        command,
        exitCode: String(exit.code ?? ''),
        ...(ok ? {} : { exitError: reason }),
      });
    }
    void (async () => {
      await recording?.close().catch(() => {});
      const recorded = recording !== undefined && !recording.error;
      emitAuditInBackground(audit, 'T2004I', proxied.endFields(reason, recorded, recording?.error));
    })();
  });
  // The client went away first: stop the program (SIGHUP, as sshd does) and hang up.
  channel.on('close', () => {
    remote.close();
    client.end();
  });
}
