import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a client program printed, and its exit code (-1 when it did not exit with one). */
export interface ClientRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a real client (psql, mariadb) to its end and resolves with what it said, whatever its
 * exit: tests assert a refusal's words as they assert a result.
 */
export function runClient(command: string, args: string[], timeoutMs = 30_000): Promise<ClientRun> {
  return run(command, args, { timeout: timeoutMs }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}
