import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  activeSessionsPrefix,
  trackerFromItem,
  type SessionTracker,
} from '../../packages/server/src/modules/sessions/session-tracker.store.js';
import {
  haClusterName,
  startHaCluster,
  type HaCluster,
  type HaProxy,
} from '../../packages/server/src/testing/ha-cluster.testkit.js';
import {
  startHaproxy,
  type RunningHaproxy,
} from '../../packages/server/src/testing/haproxy.testkit.js';
import { startSwift, type RunningSwift } from '../../packages/server/src/testing/swift.testkit.js';
import { posternBin } from '../../packages/server/src/testing/ha-process.testkit.js';

// The server's program sees these module augmentations; this one must too, for the testkits'
// types to check: Fastify's reply cookies (ha-storage's imports reach the session cookie), and
// the Swift broker vitest provides (ha-cluster imports shared-swift, unused here).
import type {} from '@fastify/cookie';
import type {} from '../../packages/server/src/testing/swift.global-setup.testkit.js';

/**
 * A high-availability cluster for the browser (docs/high-availability.md), from the server's HA
 * testkits: three `postern start` on a fresh schema of the machine's PostgreSQL (state, audit,
 * recording spool), their recordings in a bucket of a Swift (S3) of the spec's own, an agent with a
 * tunnel to each proxy, and haproxy in front, where the browser goes.
 *
 * vitest's run shares one Swift between test files (shared-swift.testkit.ts, through its
 * globalSetup); Playwright has none of that, so the cluster keeps its recordings in a Swift started
 * here: the testkit's `recordings: 'dir'` leaves the proxies' `recordings` empty, and the bucket's
 * settings go in as extra config.
 */
export interface HaWorld {
  cluster: HaCluster;
  haproxy: RunningHaproxy;
  swift: RunningSwift;
  bucket: string;
  /** haproxy's address: the console, as users reach it. */
  url: string;
  /** The proxy that holds the live terminal session `sid` (its tracker names it). */
  holderOf(sid: string): Promise<HaProxy | undefined>;
  /** The live terminal sessions' trackers, as every proxy lists them. */
  liveSessions(): Promise<SessionTracker[]>;
  /** `postern users add` against the cluster's storage: the invite link it prints. */
  addUser(name: string, roles: string[], logins: string[]): string;
  /** Every process's output (proxies, agent, haproxy), for a failing spec to attach. */
  logs(): string;
  close(): Promise<void>;
}

export async function startHaWorld(proxies = 3): Promise<HaWorld> {
  const swift = await startSwift();
  let cluster: HaCluster | undefined;
  let haproxy: RunningHaproxy | undefined;
  let cliDir: string | undefined;
  const close = async () => {
    await haproxy?.stop();
    await cluster?.close();
    await swift.stop();
    if (cliDir) await rm(cliDir, { recursive: true, force: true });
  };
  try {
    const bucket = `ha-e2e-${randomBytes(6).toString('hex')}`;
    await swift.createBucket(bucket);
    cluster = await startHaCluster({
      proxies,
      agent: true,
      // Its own Swift: the shared one is the vitest run's.
      swift,
      bucket,
    });
    const running = cluster;
    haproxy = await startHaproxy({
      backends: running.proxies.map((proxy) => {
        const { hostname, port } = new URL(proxy.webUrl);
        return { host: hostname, port: Number(port) };
      }),
    });
    await haproxy.allUp();
    const balancer = haproxy;

    // The admin commands read the cluster's storage from a config file of their own.
    cliDir = await mkdtemp(path.join(tmpdir(), 'postern-ha-cli-'));
    const cliConfig = path.join(cliDir, 'postern.yaml');
    // JSON is YAML.
    await writeFile(
      cliConfig,
      JSON.stringify({ cluster_name: haClusterName, storage: running.storage }),
    );
    const cliDataDir = cliDir;

    const liveSessions = async () =>
      running.withBackend(async (backend) =>
        (await backend.list({ prefix: activeSessionsPrefix })).items.map(trackerFromItem),
      );

    return {
      cluster: running,
      haproxy: balancer,
      swift,
      bucket,
      url: balancer.url,
      liveSessions,
      async holderOf(sid) {
        const tracker = (await liveSessions()).find((t) => t.id === sid);
        return running.proxies.find((proxy) => proxy.webUrl === tracker?.proxyAddr);
      },
      addUser(name, roles, logins) {
        const result = spawnSync(
          process.execPath,
          [
            ...[posternBin, 'users', 'add', name, '--roles', roles.join(',')],
            ...['--logins', logins.join(','), '--config', cliConfig, '--data-dir', cliDataDir],
          ],
          { encoding: 'utf8', timeout: 30_000 },
        );
        if (result.status !== 0) throw new Error(`postern users add failed: ${result.stderr}`);
        return result.stdout;
      },
      logs: () => `${running.logs()}\nhaproxy:\n${balancer.output().slice(-10_000)}`,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
