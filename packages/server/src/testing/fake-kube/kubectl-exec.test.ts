import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKubeApiServer, type FakeKubeApiServer } from './fake-kube-apiserver.testkit.js';
import {
  kubectlAgainst,
  kubectlVersion,
  type KubectlHarness,
  type RunningKubectl,
} from './kubectl.testkit.js';

// The real kubectl's exec and attach against the fake API server, over both transports.
//
// What kubectl 1.32 negotiates (the upgrade headers the fake logged):
// - exec and attach, by default: GET with `Upgrade: websocket` offering only the subprotocol
//   v5.channel.k8s.io (client-go's NewWebSocketExecutor);
// - with KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false, or after the server refused the WebSocket
//   upgrade (any non-101 answer): POST with `Upgrade: SPDY/3.1` and X-Stream-Protocol-Version
//   v5.channel.k8s.io, v4.channel.k8s.io, v3.channel.k8s.io, v2.channel.k8s.io, channel.k8s.io,
//   one header line each; it then opens the streams error, stdin (-i), stdout, stderr (no -t),
//   resize (-t).
// Older kubectl (Debian's 1.20) only has the SPDY form: the WebSocket cases say so in their
// names and check SPDY instead.

const version = await kubectlVersion();
const webSocketExec = version.execOverWebSocket;
const onWebSocket = webSocketExec
  ? 'over WebSocket (kubectl default)'
  : `over SPDY: kubectl 1.${version.minor} does not exec over WebSocket by default`;
const transports: { name: string; env: Record<string, string>; upgrade: string }[] = [
  { name: onWebSocket, env: {}, upgrade: webSocketExec ? 'websocket' : 'SPDY/3.1' },
  { name: 'over SPDY', env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' }, upgrade: 'SPDY/3.1' },
];

let fake: FakeKubeApiServer;
let kubectl: KubectlHarness;

beforeAll(async () => {
  fake = await startFakeKubeApiServer();
  kubectl = await kubectlAgainst(fake);
  fake.pods.add({ name: 'web-1' });
  for (const pod of ['shell-0', 'shell-1']) fake.pods.add({ name: pod, main: { command: ['sh'] } });
});

afterAll(async () => {
  await kubectl.cleanup();
  await fake.stop();
});

const lastUpgrade = (subresource: string) =>
  fake.requests.findLast((request) => request.path.endsWith(`/${subresource}`));

describe.each(transports)('kubectl exec $name', ({ env, upgrade }) => {
  it('carries stdout, stderr and the exit code', async () => {
    const result = await kubectl.run(
      ['exec', 'web-1', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'],
      { env },
    );
    expect(result).toMatchObject({ stdout: 'out\n', code: 3 });
    expect(result.stderr).toContain('err\n');
    expect(result.stderr).toContain('command terminated with exit code 3');
    const request = lastUpgrade('exec')!;
    expect(request.headers.upgrade).toBe(upgrade);
    expect(request.query).toMatchObject({
      command: ['sh', '-c', 'echo out; echo err >&2; exit 3'],
      container: ['main'],
      stdout: ['true'],
      stderr: ['true'],
    });
    if (upgrade === 'websocket') {
      expect(request.method).toBe('GET');
      expect(request.headers.webSocketProtocols).toEqual(['v5.channel.k8s.io']);
    } else {
      expect(request.method).toBe('POST');
      // Best first: v5 since kubectl 1.29, v4 before (Debian's 1.20).
      const offered = request.headers.streamProtocolVersions;
      expect(offered[0]).toBe(version.minor >= 29 ? 'v5.channel.k8s.io' : 'v4.channel.k8s.io');
      expect(offered).toContain('v4.channel.k8s.io');
    }
  });

  it('passes stdin through to its end (-i), so the command sees EOF', async () => {
    const result = await kubectl.run(['exec', '-i', 'web-1', '--', 'sh', '-c', 'cat; echo done'], {
      env,
      input: 'piped in\n',
    });
    expect(result).toMatchObject({ stdout: 'piped in\ndone\n', code: 0 });
  });

  it('runs an interactive shell on a terminal (-it): typing, resizing, exit code', async () => {
    const shell = kubectl.startInPty(['exec', '-it', 'web-1', '--', 'sh'], {
      env,
      cols: 80,
      rows: 24,
    });
    await typeAndSee(shell, 'echo typed-$((6*7))', /typed-42/);
    shell.resize(100, 40);
    await retypeUntil(shell, 'stty size', /\r\n40 100\r\n/);
    shell.write('exit 7\r');
    expect(await shell.exited).toBe(7);
    expect(lastUpgrade('exec')!.query).toMatchObject({ tty: ['true'], stdin: ['true'] });
  });
});

describe.each(transports.map((transport, index) => ({ ...transport, pod: `shell-${index}` })))(
  'kubectl attach $name',
  ({ env, upgrade, pod }) => {
    it("joins the pod's main process on a terminal, and ends with it", async () => {
      const attached = kubectl.startInPty(['attach', '-it', pod], { env, cols: 80, rows: 24 });
      await attached.waitFor(/If you don't see a command prompt/, 'the attach banner');
      // The shell printed its prompt before anyone attached: ask for another, as the banner says.
      attached.write('\r');
      await typeAndSee(attached, 'echo attached-$((2+3))', /attached-5/);
      attached.write('exit\r');
      expect(await attached.exited).toBe(0);
      expect(lastUpgrade('attach')!.headers.upgrade).toBe(upgrade);
      // The main process's output went to the container's log as well.
      expect((await kubectl.run(['logs', pod])).stdout).toContain('attached-5');
    });
  },
);

describe('kubectl exec when the server refuses WebSocket', () => {
  it(
    webSocketExec
      ? 'falls back to SPDY after the 400'
      : `uses SPDY: kubectl 1.${version.minor} never tries WebSocket`,
    async () => {
      const old = await startFakeKubeApiServer({ websocket: false });
      const client = await kubectlAgainst(old);
      old.pods.add({ name: 'web-1' });
      const result = await client.run(['exec', 'web-1', '--', 'echo', 'fell back']);
      await client.cleanup();
      await old.stop();
      expect(result).toMatchObject({ stdout: 'fell back\n', code: 0 });
      const upgrades = old.requests
        .filter((request) => request.path.endsWith('/exec'))
        .map((request) => request.headers.upgrade);
      expect(upgrades).toEqual(webSocketExec ? ['websocket', 'SPDY/3.1'] : ['SPDY/3.1']);
    },
  );

  it('reports a pod that does not exist', async () => {
    const { stderr, code } = await kubectl.run(['exec', 'nope', '--', 'true']);
    expect(code).toBe(1);
    expect(stderr).toContain('pods "nope" not found');
  });
});

/** Types a command once the shell shows a prompt, and waits for what it prints. */
async function typeAndSee(terminal: RunningKubectl, command: string, printed: RegExp) {
  await terminal.waitFor(/[#$] $/, 'a shell prompt');
  const from = terminal.output().length;
  terminal.write(`${command}\r`);
  await terminal.waitFor(printed, `the output of ${command}`, from);
}

/**
 * A resize travels beside the typing (another SPDY stream), so a command typed right after it
 * may run before it lands: type again until the output shows it, a bounded number of times.
 */
async function retypeUntil(terminal: RunningKubectl, command: string, printed: RegExp) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const from = terminal.output().length;
    terminal.write(`${command}\r`);
    // The command's output ends with the next prompt.
    await terminal.waitFor(/\r\n[#$] $/, 'the next prompt', from);
    if (printed.test(terminal.output().slice(from))) return;
  }
  throw new Error(`${command} never printed ${printed}:\n${terminal.output()}`);
}
