import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { posternBin } from './postern-process.js';

export interface RunningAgent {
  /** Stops it as an operator would (SIGTERM) and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs `postern agent` against a proxy, as a separate process with its own data dir, and
 * resolves once it logs that its reverse tunnel is up.
 */
export async function startAgent(
  proxyUrl: string,
  token: string,
  labels: string,
): Promise<RunningAgent> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-agent-'));
  const child = spawn(
    process.execPath,
    [
      posternBin,
      'agent',
      '--proxy',
      proxyUrl,
      '--token',
      token,
      '--labels',
      labels,
      '--data-dir',
      dataDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the agent's tunnel is not up: ${output}`)),
      15_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('tunnel to the proxy is up')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the agent exited with ${code}: ${output}`));
    });
  });

  return {
    async stop() {
      const exited = child.exitCode !== null || child.signalCode !== null;
      const code = exited
        ? child.exitCode
        : await new Promise<number | null>((resolve) => {
            child.once('exit', resolve);
            child.kill('SIGTERM');
          });
      await rm(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
