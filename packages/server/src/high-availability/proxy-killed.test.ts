import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyLostReason } from '../modules/sessions/dead-proxy-recovery.js';
import {
  startHaCluster,
  terminalSessionId,
  type HaCluster,
  type HaProxy,
  type HaUser,
} from '../testing/ha-cluster.testkit.js';
import { sleep } from '../testing/ha-process.testkit.js';
import {
  bucketKeys,
  playRecording,
  spoolEntries,
  tickLoop,
  ticksIn,
} from '../testing/ha-recordings.testkit.js';

// Three real proxies on one PostgreSQL schema and one S3 bucket, and an agent with a tunnel to
// each. A browser terminal through proxy B prints a counter; B is SIGKILLed mid-session. The
// others go on serving the agent's node, and once B's registry record expires one of them ends
// the session in the audit log and seals B's recording from the spool (docs/high-availability.md).

const proxyTtlMs = 3000;
/** How long the session prints before the kill: a few spool flushes (1 s each). */
const outputMs = 6000;

let cluster: HaCluster;
let alice: HaUser;

beforeAll(async () => {
  cluster = await startHaCluster({ proxies: 3, agent: true, opensshNode: true });
  await cluster.addRole('ha');
  alice = await cluster.addUser('alice', ['ha']);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

/** How long one try waits for the node's answer before it gives up and opens another terminal. */
const attemptMs = 5000;
/** How long after the kill the survivors must reach the node (idle here: well under 2 s). */
const failoverBudgetMs = 20_000;

/**
 * Opens a terminal through `proxy` until one reaches the node (default: the agent's; `serverId`:
 * another, such as the OpenSSH node); resolves with the time it took. A try that stalls is
 * abandoned after `attemptMs` and logged, as a user would press Reconnect; a CI run on two busy
 * cores once spent a whole 10 s budget in one silent try, with no log to say where.
 */
async function reachNode(
  proxy: HaProxy,
  since: number,
  deadline: number,
  serverId?: string,
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const params = serverId ? { server_id: serverId } : {};
      const client = await cluster.openTerminal(proxy, alice, params);
      try {
        if (client.response.status !== 'ok') throw new Error(JSON.stringify(client.response));
        client.type(`echo "via-${proxy.index}=$((6*7))"\r`);
        const waitMs = Math.min(attemptMs, Math.max(500, deadline - Date.now()));
        await client.waitForOutput(`via-${proxy.index}=42`, waitMs);
        return Date.now() - since;
      } finally {
        client.close();
      }
    } catch (error) {
      console.log(`try ${attempt} through proxy ${proxy.index} failed: ${String(error)}`);
      if (Date.now() > deadline) {
        throw new Error(
          `no session through proxy ${proxy.index} (${attempt} tries): ${error}\n` +
            `proxy ${proxy.index}:\n${proxy.logs().slice(-4000)}\nagent:\n${cluster.agent?.logs().slice(-4000)}`,
        );
      }
      await sleep(200);
    }
  }
}

describe('a proxy killed mid-session', () => {
  it('leaves the node reachable through the others, its session ended and its recording sealed', async () => {
    const [a, b, c] = cluster.proxies as [HaProxy, HaProxy, HaProxy];
    const live = await cluster.openTerminal(b, alice);
    expect(live.response.status).toBe('ok');
    const sid = await terminalSessionId(live);
    live.type(tickLoop());
    await live.waitForOutput(/tick 1 \d{13}/, 15_000);
    await sleep(outputMs);
    const seen = ticksIn(live.output());
    expect(seen.length).toBeGreaterThan(outputMs / 200 / 2);
    // The recording has been flowing into the spool (flushed every second) all along.
    expect((await spoolEntries(cluster.storage, sid)).map((e) => e.name)).toContain(
      `${sid}.cast.gz`,
    );

    const killedAt = Date.now();
    await b.kill('SIGKILL');

    // (i) New sessions through A and C reach the agent's node.
    const failover = await Promise.all(
      [a, c].map((proxy) => reachNode(proxy, killedAt, killedAt + failoverBudgetMs)),
    );
    console.log(`failover: a new session through A after ${failover[0]} ms, C ${failover[1]} ms`);
    // And the agentless OpenSSH node, which each proxy dials itself.
    const { nodeId } = cluster.opensshNode!;
    const openssh = await Promise.all(
      [a, c].map((proxy) => reachNode(proxy, Date.now(), Date.now() + failoverBudgetMs, nodeId)),
    );
    console.log(`failover to the OpenSSH node: A ${openssh[0]} ms, C ${openssh[1]} ms`);
    expect((await live.closed).code).not.toBe(1000);

    // (ii) A survivor seals B's recording: incomplete, playable through A, ending near the kill.
    // Sealed once B's record runs out (proxy_ttl), not at some later sweep; a slow failover above
    // may have used that time up already, so it still gets a few seconds of its own.
    const sealDeadline = Math.max(killedAt + proxyTtlMs + 10_000, Date.now() + 5000);
    let played;
    while (!(played = await playRecording(a.webUrl, cluster.clusterName, alice, sid))) {
      if (Date.now() > sealDeadline) throw new Error(`not sealed in time:\n${cluster.logs()}`);
      await sleep(200);
    }
    const sealedAfter = Date.now() - killedAt;
    expect(played.info).toMatchObject({ sid, incomplete: true });
    expect(played.whole).toBe(true);
    const recorded = ticksIn(played.output);
    expect(recorded.length).toBeGreaterThan(0);
    // Every tick from the first on, none missing, none the client did not see.
    expect(recorded.map((t) => t.n)).toEqual(recorded.map((_, i) => i + 1));
    const lastSeen = ticksIn(live.output()).at(-1)!;
    const lastRecorded = recorded.at(-1)!;
    expect(lastRecorded.n).toBeLessThanOrEqual(lastSeen.n);
    const lostMs = killedAt - lastRecorded.at;
    console.log(
      `sealed ${sealedAfter} ms after the kill; the recording ends ${lostMs} ms before it ` +
        `(tick ${lastRecorded.n}; the browser saw up to tick ${lastSeen.n})`,
    );
    expect(lostMs).toBeLessThan(5000);

    // The sealed recording leaves the spool for the bucket.
    const deadline = Date.now() + 10_000;
    while ((await spoolEntries(cluster.storage, sid)).length > 0) {
      if (Date.now() > deadline) throw new Error(`still spooled:\n${cluster.logs()}`);
      await sleep(200);
    }
    expect(await bucketKeys(cluster.s3!, cluster.bucket!, sid)).toEqual(
      expect.arrayContaining([`${sid}.cast.gz`, `${sid}.index.json`]),
    );

    // Which survivor did what (one of them seals, one writes the end: not always the same).
    for (const proxy of [a, c]) {
      for (const line of proxy.logs().split('\n')) {
        if (line.includes('a stopped proxy left')) console.log(`proxy ${proxy.index}: ${line}`);
      }
    }

    // (iii) The audit log holds the session's start and its end with the error.
    const events = (await cluster.auditEvents()).filter((e) => e.sid === sid);
    expect(events.find((e) => e.code === 'T2000I')).toMatchObject({ user: 'alice' });
    const ends = events.filter((e) => e.code === 'T2004I');
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({
      user: 'alice',
      error: proxyLostReason,
      session_recording: 'on',
    });
  }, 120_000);
});
