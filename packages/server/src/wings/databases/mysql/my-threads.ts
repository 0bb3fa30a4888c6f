import { randomInt } from 'node:crypto';

/** A session as the client knows it (the proxy's connection id) and as the server does. */
interface Thread {
  user: string;
  db: string;
  serverId: number;
}

/** A `KILL [QUERY|CONNECTION] <id>` that names an id in the proxies' range. */
export interface ProxyKill {
  id: number;
  /** `QUERY `, `CONNECTION ` or nothing, as the client wrote it. */
  what: string;
}

const killPattern = /^\s*kill\s+(query\s+|connection\s+)?(\d+)\s*;?\s*$/i;

/** Proxy ids start high, away from the small ids servers hand out. */
const firstId = 3_000_000_000;
const lastId = 0xfffffff0;

/** The short query's kill of one of the proxies' ids, if it is one. */
export function proxyKillOf(query: string): ProxyKill | undefined {
  const kill = killPattern.exec(query);
  if (!kill) return undefined;
  const id = Number(kill[2]);
  if (id < firstId) return undefined;
  return { id, what: kill[1]?.trim().toUpperCase() ?? '' };
}

/** The kill as the server must hear it: its own id for the thread. */
export const killText = (kill: ProxyKill, serverId: number) =>
  `KILL ${kill.what} ${serverId}`.replace(/\s+/g, ' ');

/**
 * The proxy greets each client before it reaches the database, so the connection id the client
 * holds is the proxy's. `KILL [QUERY] <id>` (what the mariadb and mysql clients send on a second
 * connection when Ctrl-C interrupts a query) is translated to the server's own id kept here
 * (my-relay.ts), for the same Postern user on the same database only. A real id typed by hand is below the proxies'
 * range and never mistaken for one of theirs. Ids are drawn at random, so that the proxies of a
 * cluster seldom hand out the same one: a kill of an id another proxy holds is asked of it
 * (peer-cancel.ts).
 */
export class MysqlThreads {
  static readonly firstId = firstId;
  readonly #threads = new Map<number, Thread>();

  /** A fresh id for a client's greeting. */
  issue(): number {
    for (;;) {
      const id = randomInt(firstId, lastId);
      if (!this.#threads.has(id)) return id;
    }
  }

  bind(id: number, thread: Thread): void {
    this.#threads.set(id, thread);
  }

  drop(id: number): void {
    this.#threads.delete(id);
  }

  /** Whether this proxy holds the id (for anyone). */
  holds(id: number): boolean {
    return this.#threads.has(id);
  }

  /** The server's id of a thread held here, when it is this user's on this database. */
  serverIdFor(id: number, user: string, db: string): number | undefined {
    const thread = this.#threads.get(id);
    return thread && thread.user === user && thread.db === db ? thread.serverId : undefined;
  }
}
