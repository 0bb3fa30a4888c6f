import { spawn } from 'node:child_process';
import { vi } from 'vitest';

/** How many sessions run `select sleep(30)` at the server (asked as its root over its socket). */
export async function sleepsRunning(sql: (statement: string) => Promise<string>): Promise<number> {
  const count = await sql(
    "select count(*) from information_schema.processlist where info = 'select sleep(30)'",
  );
  return Number(count.trim());
}

/**
 * The real mariadb client, started with `args`, runs `select sleep(30)` until the server shows it
 * running, then gets Ctrl-C (SIGINT), as a person would send it: the client kills the query on a
 * second connection. Resolves with what it printed (stdout and stderr) and how long it took to
 * exit; the caller checks the server no longer runs it.
 */
export async function interruptedMariadb(
  args: string[],
  sql: (statement: string) => Promise<string>,
): Promise<{ output: string; stoppedMs: number }> {
  const child = spawn('mariadb', [...args, '-e', 'select sleep(30)']);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await vi.waitFor(
    async () => {
      if ((await sleepsRunning(sql)) !== 1) throw new Error(`the query is not running: ${output}`);
    },
    { timeout: 15_000 },
  );
  const interrupted = Date.now();
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('close', resolve));
  return { output, stoppedMs: Date.now() - interrupted };
}
