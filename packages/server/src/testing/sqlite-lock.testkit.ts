import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The server package, from where the child resolves better-sqlite3 like the server does. */
const serverPackageDir = fileURLToPath(new URL('../..', import.meta.url));

// The child takes SQLite's write lock and holds it until told to let go on stdin.
const holder = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('journal_mode = WAL');
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
`;

export interface HeldSqliteLock {
  /** Lets the lock go and waits for the other process to end. */
  release(): Promise<void>;
}

/**
 * Another process holding `BEGIN EXCLUSIVE` on a SQLite file, as an admin command or a backup
 * tool stuck mid-transaction would: writers elsewhere get SQLITE_BUSY until it is released.
 */
export async function holdSqliteLock(file: string): Promise<HeldSqliteLock> {
  const child = spawn(process.execPath, ['-e', holder, file], {
    cwd: serverPackageDir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  return {
    async release() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin.write('release\n');
      await exited;
    },
  };
}
