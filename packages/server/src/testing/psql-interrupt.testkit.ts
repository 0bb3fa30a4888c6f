import { spawn } from 'node:child_process';
import { vi } from 'vitest';

/**
 * psql runs `select pg_sleep(30)` through `conninfo` until the database shows the query active
 * (`activeCount` asks it, as its superuser), then gets Ctrl-C (SIGINT), as a person would send it.
 * Resolves with what psql printed on stderr, its exit code and how long it took to stop.
 */
export async function interruptedPsql(
  conninfo: string,
  activeCount: (sql: string) => Promise<string>,
): Promise<{ stderr: string; code: number | null; stoppedMs: number }> {
  const child = spawn('psql', [conninfo, '-X', '-c', 'select pg_sleep(30)']);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await vi.waitFor(
    async () => {
      const active = await activeCount(
        "select count(*) from pg_stat_activity where query = 'select pg_sleep(30)' and state = 'active'",
      );
      if (active.trim() !== '1') throw new Error(`the query is not running yet: ${stderr}`);
    },
    { timeout: 15_000 },
  );
  const interrupted = Date.now();
  child.kill('SIGINT');
  // 'close', not 'exit': psql's last stderr may still be in the pipe when it exits.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { stderr, code, stoppedMs: Date.now() - interrupted };
}
