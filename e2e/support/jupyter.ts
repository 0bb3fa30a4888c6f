import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './sshd.js';

export interface RunningJupyter {
  /** `http://127.0.0.1:<port>`: the app's `uri` for Postern. */
  uri: string;
  /** The notebook directory; `e2e.ipynb` is in it, with one empty code cell. */
  dir: string;
  output(): string;
  stop(): Promise<void>;
}

/** An nbformat 4 notebook with one empty code cell, on the Python kernel Debian installs. */
const emptyNotebook = JSON.stringify({
  cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: [] }],
  metadata: {
    kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' },
  },
  nbformat: 4,
  nbformat_minor: 5,
});

/**
 * A real Jupyter Notebook (Debian's jupyter-notebook, installed by scripts/ensure-test-deps.sh)
 * on a free loopback port, with no login of its own: Postern is its gate. It checks its `_xsrf`
 * cookie on every write and talks to kernels over WebSockets, which is what the test needs.
 * Configured as Jupyter's docs say for a reverse proxy: the proxy sends the upstream's own `Host`,
 * so the page's origin (`publicOrigin`, the app's address on Postern) is allowed by name, and
 * only that origin: Jupyter's cross-origin checks stay on.
 */
export async function startJupyter(publicOrigin: string): Promise<RunningJupyter> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-jupyter-'));
  await writeFile(path.join(dir, 'e2e.ipynb'), emptyNotebook);
  const port = await freePort();
  let output = '';
  const child = spawn(
    '/usr/bin/jupyter-notebook',
    [
      '--no-browser',
      '--allow-root',
      '--ip=127.0.0.1',
      `--port=${port}`,
      '--port-retries=0',
      `--notebook-dir=${dir}`,
      '--NotebookApp.token=',
      '--NotebookApp.password=',
      '--NotebookApp.allow_remote_access=True',
      `--NotebookApp.allow_origin=${publicOrigin}`,
    ],
    // Its own HOME and runtime dir: nothing of the machine's Jupyter setup is read or written.
    {
      env: { ...process.env, HOME: dir, JUPYTER_RUNTIME_DIR: path.join(dir, '.runtime') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let running = true;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  const stop = async () => {
    if (running) child.kill('SIGTERM');
    // Jupyter asks for confirmation on the first SIGINT, not on SIGTERM; kernels go with it.
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (running) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  const uri = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!running) break;
    const up = await fetch(`${uri}/api/status`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) return { uri, dir, output: () => output, stop };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`Jupyter did not answer on ${uri}:\n${output}`);
}
