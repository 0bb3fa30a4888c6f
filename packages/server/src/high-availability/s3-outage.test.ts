import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHaCluster,
  terminalSessionId,
  type HaCluster,
  type HaProxy,
  type HaUser,
} from '../testing/ha-cluster.testkit.js';
import { sleep, waitUntil } from '../testing/ha-process.testkit.js';
import {
  bucketKeys,
  playRecording,
  spoolEntries,
  tickLoop,
  ticksIn,
} from '../testing/ha-recordings.testkit.js';
import { sharedSwift } from '../testing/shared-swift.testkit.js';
import { startTcpRelay, type TcpRelay } from '../testing/tcp-relay.testkit.js';
import type { TerminalClient } from '../testing/terminal-client.testkit.js';

// Two proxies whose S3 endpoint is a relay to the shared Swift; the relay is cut while a session
// runs. Recordings go on into the spool in PostgreSQL, strict sessions are refused (their
// recording could not be promised), others start; once S3 is back the spool drains to the
// bucket and the recordings play whole (docs/high-availability.md, "Recordings").

/**
 * How long S3 stays away: the minute of the scenario. Recordings pile up in the spool
 * and the uploads retried every 10 s fail six rounds running; the session never notices.
 */
const outageMs = 60_000;

let cluster: HaCluster;
let relay: TcpRelay;
let alice: HaUser;
let sam: HaUser;

beforeAll(async () => {
  const swift = await sharedSwift();
  relay = await startTcpRelay(Number(new URL(swift.endpoint).port));
  cluster = await startHaCluster({
    proxies: 2,
    agent: true,
    s3Endpoint: `http://127.0.0.1:${relay.port}`,
  });
  await cluster.addRole('ha');
  await cluster.addRole('ha-strict', { options: { record_session: { default: 'strict' } } });
  alice = await cluster.addUser('alice', ['ha']);
  sam = await cluster.addUser('sam', ['ha-strict']);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
  await relay?.close();
});

/** What refused a terminal: its response's message, or the error frame it was sent. */
async function refusal(client: TerminalClient): Promise<string | undefined> {
  if (client.response.status !== 'ok') return client.response.message ?? client.response.status;
  await Promise.race([client.closed, sleep(5000)]);
  return client.frames.find((f) => f.type === T.error)?.payload;
}

async function echoThrough(proxy: HaProxy, user: HaUser, word: string): Promise<string> {
  const client = await cluster.openTerminal(proxy, user);
  expect(client.response).toMatchObject({ status: 'ok' });
  client.type(`echo "${word}=$((2+3))"\r`);
  await client.waitForOutput(`${word}=5`, 15_000);
  const sid = await terminalSessionId(client);
  client.type('exit\r');
  await client.closed;
  return sid;
}

describe('the recordings bucket unreachable for a while', () => {
  it('keeps sessions recorded in the spool, refuses strict ones, and uploads everything after', async () => {
    const [first, second] = cluster.proxies as [HaProxy, HaProxy];
    const live = await cluster.openTerminal(first, alice);
    expect(live.response.status).toBe('ok');
    const sid = await terminalSessionId(live);
    live.type(tickLoop());
    await live.waitForOutput(/tick 3 \d{13}/, 15_000);

    await relay.cut();
    const cutAt = Date.now();
    const ticksAtCut = ticksIn(live.output()).length;
    const spooledAtCut = (await spoolEntries(cluster.storage, `${sid}.cast.gz`))[0]?.size ?? 0;

    // A strict session is refused, saying why; a best-effort one starts and is recorded.
    const strict = await cluster.openTerminal(first, sam);
    const why = await refusal(strict);
    expect(why).toContain('this session must be recorded (record_session: strict)');
    expect(why).toContain('the recordings bucket cannot be reached');
    const during = await echoThrough(second, alice, 'during');

    // The live session goes on, and its recording grows in the spool.
    await sleep(Math.max(0, cutAt + outageMs / 2 - Date.now()));
    expect(ticksIn(live.output()).length).toBeGreaterThan(ticksAtCut + 10);
    const spooled = await spoolEntries(cluster.storage);
    expect(spooled.find((e) => e.name === `${sid}.cast.gz`)?.size).toBeGreaterThan(spooledAtCut);
    // The session that ended during the outage waits there whole, for its upload.
    expect(spooled.filter((e) => e.name.startsWith(during)).every((e) => e.ended)).toBe(true);
    expect(spooled.map((e) => e.name)).toContain(`${during}.cast.gz`);
    expect(await bucketKeys(cluster.s3!, cluster.bucket!)).toEqual([]);

    await sleep(Math.max(0, cutAt + outageMs - Date.now()));
    expect(ticksIn(live.output()).length).toBeGreaterThan(outageMs / 200 / 2);
    await relay.restore();
    const restoredAt = Date.now();
    live.type('\x03');
    live.type('exit\r');
    await live.closed;

    // Everything reaches the bucket and the spool empties.
    await waitUntil(
      async () => (await spoolEntries(cluster.storage)).length === 0,
      () => `the spool to empty:\n${cluster.logs()}`,
      20_000,
      250,
    );
    console.log(`the spool emptied ${Date.now() - restoredAt} ms after S3 came back`);
    const keys = await bucketKeys(cluster.s3!, cluster.bucket!);
    for (const session of [sid, during]) {
      expect(keys).toEqual(
        expect.arrayContaining(
          ['cast.gz', 'chunks.jsonl', 'keyframes.jsonl', 'index.json'].map(
            (p) => `${session}.${p}`,
          ),
        ),
      );
    }

    // Both play, complete, through the other proxy; the live one with every tick of the outage.
    const played = await playRecording(second.webUrl, cluster.clusterName, alice, sid);
    expect(played?.info).toMatchObject({ incomplete: false });
    expect(played?.whole).toBe(true);
    const ticks = ticksIn(played!.output).map((t) => t.n);
    expect(ticks).toEqual(ticks.map((_, i) => i + 1));
    expect(ticks.length).toBe(ticksIn(live.output()).length);
    const short = await playRecording(first.webUrl, cluster.clusterName, alice, during);
    expect(short?.info).toMatchObject({ incomplete: false });
    expect(short?.output).toContain('during=5');

    // Strict sessions start again.
    await echoThrough(first, sam, 'strict-after');
  }, 150_000);
});
