import { readIdentity } from '../agent/agent-state.js';
import { PosternProcess, waitUntil } from './ha-process.testkit.js';

export interface HaAgent {
  /** The node it serves: the terminal's `server_id`. */
  nodeId: string;
  dataDir: string;
  readonly pid: number | undefined;
  logs(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Resolves once the agent logged its tunnel to the proxy at `webUrl` up (after the `since`-th
   * character of its logs, to wait for a reconnection).
   */
  tunnelUp(webUrl: string, since?: number, timeoutMs?: number): Promise<void>;
}

/**
 * A real `postern agent` joined with `token` through `proxyUrl`: it learns the other proxies from
 * the registry and keeps a tunnel to each (docs/high-availability.md), serving this host's SSH.
 */
export async function startHaAgent(
  dataDir: string,
  proxyUrl: string,
  token: string,
): Promise<HaAgent> {
  const child = new PosternProcess('agent', [
    ...['agent', '--proxy', proxyUrl, '--token', token, '--data-dir', dataDir],
  ]);
  await child.start(/joined the cluster/);
  const identity = await readIdentity(dataDir);
  if (!identity) throw new Error(`the agent joined but wrote no identity:\n${child.logs()}`);
  return {
    nodeId: identity.nodeId,
    dataDir,
    get pid() {
      return child.pid;
    },
    logs: () => child.logs(),
    kill: (signal = 'SIGKILL') => child.kill(signal),
    tunnelUp: (webUrl, since = 0, timeoutMs = 15_000) =>
      waitUntil(
        () =>
          child
            .logs()
            .slice(since)
            .split('\n')
            .some(
              (line) => line.includes('tunnel to the proxy is up') && line.includes(`"${webUrl}"`),
            ),
        () => `the agent's tunnel to ${webUrl}:\n${child.logs().slice(-3000)}`,
        timeoutMs,
      ),
  };
}
