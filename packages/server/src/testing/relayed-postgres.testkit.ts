import { testPostgresUrl } from '../backend/testing/postgres.testkit.js';
import { startTcpRelay, type TcpRelay } from './tcp-relay.testkit.js';

/**
 * The test PostgreSQL behind a loopback relay that a test can freeze (the database goes silent: a
 * host gone, a cable cut) or cut, while the database itself, shared with other tests, runs on.
 */
export interface RelayedPostgres {
  relay: TcpRelay;
  /** The test database's URL through the relay. */
  url: string;
}

export async function relayedPostgres(): Promise<RelayedPostgres> {
  const relay = await startTcpRelay(Number(new URL(testPostgresUrl).port || 5432));
  const url = new URL(testPostgresUrl);
  url.port = String(relay.port);
  return { relay, url: url.toString() };
}

/**
 * Closes what was opened through the relay as it would close once the path is back (the frozen
 * connections go, new ones pass, so nothing waits on a silent socket), then the relay.
 */
export async function closeBehindRelay(
  relay: TcpRelay | undefined,
  close: () => Promise<void>,
): Promise<void> {
  await relay?.cut();
  await relay?.restore();
  await close();
  await relay?.close();
}
