// Everything a terminal benchmark run needs, set up from scratch in a temp dir: the built
// `postern start`, a real sshd trusting its user CA (and a plain key for the baseline), the sshd
// registered as a node, a role allowing root on every node, and a web session with that role.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  addOpenSshNode,
  assertBuilt,
  createRole,
  createWebSession,
  startPostern,
} from './postern.mjs';
import { openProxyTerminal, terminalUrl } from './proxy-client.mjs';
import { openSshTerminal } from './ssh-client.mjs';
import { startSshd } from './sshd.mjs';

/** The prompt every benchmark shell is given; split in the command so its echo never matches. */
export const PROMPT = 'BENCHPS> ';
const setPrompt = `PS1='BENCH''PS> '; PROMPT_COMMAND=; unset HISTFILE\r`;

export async function setUp({ posternNodeArgs = [], posternConfig = [], log = () => {} } = {}) {
  assertBuilt();
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-'));
  const cleanups = [() => rm(dir, { recursive: true, force: true })];
  const tearDown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    log('starting postern');
    const postern = await startPostern({
      dataDir: path.join(dir, 'postern'),
      extraNodeArgs: posternNodeArgs,
      configLines: posternConfig,
    });
    cleanups.push(() => postern.stop());
    const userCa = (await postern.cli(['ca', 'export', '--type', 'user'])).trim();
    log('starting sshd');
    const sshd = await startSshd({ dir: path.join(dir, 'sshd'), trustedUserCaKeys: userCa });
    cleanups.push(() => sshd.stop());
    const nodeId = await addOpenSshNode(postern, 'bench-sshd', sshd.addr);
    await createRole(postern, 'bench-root', ["logins: ['root']", "node_labels: {'*': '*'}"]);
    const session = await createWebSession(postern, 'bench', ['bench-root']);
    const url = terminalUrl(postern.url, { serverId: nodeId, login: 'root' });
    const openProxy = () =>
      openProxyTerminal({ url, cookie: session.cookie, bearer: session.bearer });
    await untilServed(openProxy, log);

    return {
      dir,
      postern,
      sshd,
      nodeId,
      session,
      tearDown,
      /** A terminal through the proxy (WebSocket → postern → SSH → sshd). */
      openProxy,
      /** The baseline: `ssh -tt` straight to the same sshd. */
      openSsh: async () => openSshTerminal(sshd),
    };
  } catch (error) {
    await tearDown();
    throw error;
  }
}

/**
 * The server learns of the node and the role through its backend watch, a moment after the CLI
 * wrote them: opens sessions until one reaches a prompt (which also warms both paths up).
 */
async function untilServed(openProxy, log) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const terminal = await openProxy();
      await firstPrompt(terminal, 10_000);
      await terminal.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      log(`waiting for the proxy to serve the node (${error.message})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Waits for the login shell's first prompt. Returns when it came (performance.now()). */
export function firstPrompt(terminal, timeoutMs = 30_000) {
  return terminal.out.waitFor(/[#$] $/, { timeoutMs, what: 'the first shell prompt' });
}

/** Opens a terminal and gives its shell the bench prompt. */
export async function openReady(open) {
  const terminal = await open();
  const prompt = firstPrompt(terminal);
  await prompt;
  const ours = terminal.out.waitFor(PROMPT, { what: 'the bench prompt' });
  terminal.type(setPrompt);
  await ours;
  return terminal;
}
