import type { Client, ClientChannel } from 'ssh2';
import { openExec, type PtyOptions } from './client.js';

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal?: string;
}

/** Runs a command over an open connection and collects everything it printed and how it ended. */
export async function runCommand(
  client: Client,
  command: string,
  opts: { pty?: PtyOptions; env?: Record<string, string>; stdin?: string } = {},
): Promise<ExecResult> {
  const channel = await openExec(client, command, opts);
  if (opts.stdin !== undefined) channel.end(opts.stdin);
  return collect(channel);
}

export function collect(channel: ClientChannel): Promise<ExecResult> {
  const result: ExecResult = { stdout: '', stderr: '', code: null };
  channel.on('data', (chunk: Buffer) => (result.stdout += chunk.toString()));
  channel.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()));
  channel.on('exit', (code: number | null, signal?: string) => {
    result.code = code;
    if (signal) result.signal = signal;
  });
  return new Promise((resolve) => channel.on('close', () => resolve(result)));
}

/** Reads a channel until its output matches, for driving interactive shells. */
export function readUntil(
  channel: ClientChannel,
  pattern: RegExp,
  timeoutMs = 5000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        finish();
        resolve(seen);
      }
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`timed out waiting for ${pattern}; got ${JSON.stringify(seen)}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      channel.off('data', onData);
    };
    channel.on('data', onData);
  });
}
