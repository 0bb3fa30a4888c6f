import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawn as spawnPty } from 'node-pty';
import type { FakeKubeApiServer } from './fake-kube-apiserver.testkit.js';

const execFileAsync = promisify(execFile);

/** The kubectl the tests run: $KUBECTL, else the one on PATH (scripts/ensure-test-deps.sh). */
export const kubectlBinary = process.env.KUBECTL ?? 'kubectl';

export interface KubectlVersion {
  minor: number;
  gitVersion: string;
  /** kubectl 1.30 and later run exec and attach over WebSocket unless told not to. */
  execOverWebSocket: boolean;
  /**
   * kubectl 1.30 and later tunnel port-forward through a WebSocket when
   * KUBECTL_PORT_FORWARD_WEBSOCKETS=true (1.31 and later also by default).
   */
  portForwardTunnel: boolean;
}

/** The client's version, as `kubectl version --client` reports it. */
export async function kubectlVersion(): Promise<KubectlVersion> {
  const { stdout } = await execFileAsync(kubectlBinary, ['version', '--client', '-o', 'json']);
  const client = (JSON.parse(stdout) as { clientVersion: { minor: string; gitVersion: string } })
    .clientVersion;
  const minor = Number.parseInt(client.minor, 10);
  return {
    minor,
    gitVersion: client.gitVersion,
    execOverWebSocket: minor >= 30,
    portForwardTunnel: minor >= 30,
  };
}

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** A kubectl left running (watch, logs -f, port-forward): its output so far, and a way to stop it. */
export interface RunningKubectl {
  output(): string;
  /** Resolves once `pattern` appears in the output (from offset `from`, default 0). */
  waitFor(pattern: RegExp, what: string, from?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code. */
  exited: Promise<number>;
  write(text: string): void;
  resize(cols: number, rows: number): void;
  stop(): void;
}

export interface KubectlHarness {
  env: Record<string, string>;
  run(
    args: string[],
    options?: { env?: Record<string, string>; input?: string },
  ): Promise<KubectlResult>;
  start(args: string[], options?: { env?: Record<string, string> }): RunningKubectl;
  /** On a terminal of its own, as a person types: for -it. */
  startInPty(
    args: string[],
    options?: { env?: Record<string, string>; cols?: number; rows?: number },
  ): RunningKubectl;
  cleanup(): Promise<void>;
}

/**
 * kubectl pointed at the fake: a temporary home with a kubeconfig (server URL, CA data, and the
 * token or the fake's client certificate) and its own discovery cache.
 */
export async function kubectlAgainst(
  fake: FakeKubeApiServer,
  options: { auth?: 'token' | 'client-certificate'; token?: string } = {},
): Promise<KubectlHarness> {
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const user: Record<string, string> =
    options.auth === 'client-certificate' && fake.clientCert
      ? {
          'client-certificate-data': base64(fake.clientCert.certPem),
          'client-key-data': base64(fake.clientCert.keyPem),
        }
      : { token: options.token ?? fake.token };
  return kubectlWith({ server: fake.url, 'certificate-authority-data': base64(fake.caPem) }, user);
}

/**
 * kubectl with a kubeconfig of one context (`cluster` and `user` as a kubeconfig writes them):
 * a temporary home, its own discovery cache. Postern's tests point it at the proxy.
 */
export async function kubectlWith(
  cluster: Record<string, string>,
  user: Record<string, string>,
): Promise<KubectlHarness> {
  const home = await mkdtemp(path.join(tmpdir(), 'postern-kubectl-'));
  const kubeconfig = path.join(home, 'kubeconfig');
  // JSON is YAML: kubectl reads it as any kubeconfig.
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'fake', cluster }],
    users: [{ name: 'fake', user }],
    contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: 'default' } }],
    'current-context': 'fake',
  };
  await writeFile(kubeconfig, JSON.stringify(config), { mode: 0o600 });
  return kubectlIn(home, kubeconfig);
}

/**
 * kubectl with a kubeconfig written elsewhere (by `postern kube login`), and `extraEnv` for the
 * credential plugins it runs: its own home and discovery cache.
 */
export async function kubectlUsing(
  kubeconfig: string,
  extraEnv: Record<string, string> = {},
): Promise<KubectlHarness> {
  return kubectlIn(await mkdtemp(path.join(tmpdir(), 'postern-kubectl-')), kubeconfig, extraEnv);
}

function kubectlIn(
  home: string,
  kubeconfig: string,
  extraEnv: Record<string, string> = {},
): KubectlHarness {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    KUBECONFIG: kubeconfig,
    KUBECACHEDIR: path.join(home, 'cache'),
    LANG: 'C.UTF-8',
    ...extraEnv,
  };
  const children = new Set<{ stop(): void }>();
  const track = (running: RunningKubectl) => {
    children.add(running);
    void running.exited.then(() => children.delete(running));
    return running;
  };
  return {
    env,
    run: (args, runOptions = {}) =>
      runKubectl(args, { ...env, ...runOptions.env }, runOptions.input),
    start: (args, startOptions = {}) => track(startPiped(args, { ...env, ...startOptions.env })),
    startInPty: (args, ptyOptions = {}) =>
      track(startOnTerminal(args, { ...env, TERM: 'xterm', ...ptyOptions.env }, ptyOptions)),
    cleanup: async () => {
      for (const child of children) child.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

function runKubectl(args: string[], env: Record<string, string>, input?: string) {
  return new Promise<KubectlResult>((resolve) => {
    const child = execFile(
      kubectlBinary,
      args,
      { env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ stdout, stderr, code });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

function startPiped(args: string[], env: Record<string, string>): RunningKubectl {
  const child: ChildProcess = spawn(kubectlBinary, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = collector();
  child.stdout?.on('data', (chunk: Buffer) => output.add(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.add(chunk.toString()));
  const exited = new Promise<number>((resolve) =>
    child.once('close', (code) => resolve(code ?? -1)),
  );
  return {
    output: output.text,
    waitFor: output.waitFor,
    exited,
    write: (text) => child.stdin?.write(text),
    resize: () => undefined,
    stop: () => child.kill(),
  };
}

function startOnTerminal(
  args: string[],
  env: Record<string, string>,
  size: { cols?: number; rows?: number },
): RunningKubectl {
  const terminal = spawnPty(kubectlBinary, args, {
    cols: size.cols ?? 80,
    rows: size.rows ?? 24,
    env,
    cwd: env.HOME,
  });
  const output = collector();
  terminal.onData((text) => output.add(text));
  const exited = new Promise<number>((resolve) =>
    terminal.onExit(({ exitCode }) => resolve(exitCode)),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    output: output.text,
    waitFor: output.waitFor,
    exited,
    write: (text) => terminal.write(text),
    resize: (cols, rows) => terminal.resize(cols, rows),
    stop: () => {
      if (!done) terminal.kill();
    },
  };
}

/** Output gathered as it comes, and waits for a pattern in it (bounded, never a fixed sleep). */
function collector() {
  let text = '';
  const waiters = new Set<() => void>();
  return {
    text: () => text,
    add(chunk: string) {
      text += chunk;
      for (const wake of [...waiters]) wake();
    },
    waitFor(pattern: RegExp, what: string, from = 0): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text.slice(from));
          if (!match) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(match);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`kubectl never printed ${what}; it printed:\n${text}`));
        }, 15_000);
        waiters.add(check);
        check();
      });
    },
  };
}
