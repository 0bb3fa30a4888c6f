import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The server's own YAML library (a dependency of packages/server), so the file is read as it will.
import { parseDocument } from 'yaml';
import { cluster } from './shared-server.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const posternBin = path.join(repoRoot, 'packages/server/bin/postern.js');

export interface RunningPostern {
  url: string;
  dataDir: string;
  process: ChildProcess;
  /** Every JSON log line the server printed so far. */
  logs: Record<string, unknown>[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The config file a test server runs with: the caller's YAML, plus a free port for the built-in
 * node service unless the caller chose one. Its default, 127.0.0.1:3022, would make servers
 * running in parallel fail to start.
 */
export function withFreeNodePort(configYaml = ''): string {
  const doc = parseDocument(configYaml);
  if (!doc.hasIn(['ssh_service', 'listen_addr'])) {
    doc.setIn(['ssh_service', 'listen_addr'], '127.0.0.1:0');
  }
  return doc.toString();
}

/** `postern start` on free loopback ports, in the e2e cluster, with the caller's flags last. */
export function startArgs(dataDir: string, extraArgs: string[]): string[] {
  return [
    posternBin,
    'start',
    '--data-dir',
    dataDir,
    '--web-addr',
    '127.0.0.1:0',
    '--ssh-addr',
    '127.0.0.1:0',
    '--cluster-name',
    cluster,
    ...extraArgs,
  ];
}

/**
 * Starts the built `postern start` on a free port (`--web-addr 127.0.0.1:0`) with a fresh data
 * dir, and resolves once it logs the address it serves on.
 */
export async function startPostern(
  extraArgs: string[] = [],
  /** `dataDir`: start again on an existing one (a fresh one otherwise). */
  /** `env`: more environment for the process (POSTERN_INSECURE_TLS for a self-signed root). */
  options: { configYaml?: string; dataDir?: string; env?: Record<string, string> } = {},
): Promise<RunningPostern> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'postern-e2e-')));
  const configFile = path.join(dataDir, 'postern.yaml');
  await writeFile(configFile, withFreeNodePort(options.configYaml));
  extraArgs = ['--config', configFile, ...extraArgs];
  const child = spawn(process.execPath, startArgs(dataDir, extraArgs), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`postern did not start in time: ${stderr}`)),
      30_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          entry = { nonJson: line };
        }
        logs.push(entry);
        const webAddr = entry.webAddr;
        if (typeof webAddr === 'string' && String(entry.msg).includes('serving the console')) {
          clearTimeout(timer);
          const scheme = extraArgs.includes('--insecure-no-tls') ? 'http' : 'https';
          resolve(`${scheme}://localhost:${webAddr.split(':').pop()}`);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`postern exited with ${code} before serving: ${stderr}`));
    });
  });

  return {
    url,
    dataDir,
    process: child,
    logs,
    stop(signal = 'SIGTERM') {
      // Gone already, by an exit or a signal: 'exit' will not fire again.
      if (child.exitCode !== null || child.signalCode !== null) {
        return Promise.resolve(child.exitCode);
      }
      return new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}
