/** A session as the client knows it (the proxy's connection id) and as the server does. */
interface Thread {
  user: string;
  db: string;
  serverId: number;
}

/**
 * The proxy greets each client before it reaches the database, so the connection id the client
 * holds is the proxy's. `KILL [QUERY] <id>` (what the mariadb and mysql clients send on a second
 * connection when Ctrl-C interrupts a query) is translated here to the server's own id, for the
 * same Postern user on the same database only. Proxy ids start high, away from the small ids
 * servers hand out, so a real id typed by hand is never mistaken for one of ours.
 */
export class MysqlThreads {
  static readonly firstId = 3_000_000_000;
  readonly #threads = new Map<number, Thread>();
  #next = MysqlThreads.firstId;

  /** A fresh id for a client's greeting. */
  issue(): number {
    const id = this.#next;
    this.#next = this.#next >= 0xfffffff0 ? MysqlThreads.firstId : this.#next + 1;
    return id;
  }

  bind(id: number, thread: Thread): void {
    this.#threads.set(id, thread);
  }

  drop(id: number): void {
    this.#threads.delete(id);
  }

  /**
   * A short COM_QUERY's text rewritten when it kills one of the proxy's ids: the server's id if
   * the thread is this user's on this database, `undefined` to refuse; the text itself otherwise.
   */
  translateKill(query: string, user: string, db: string): string | undefined {
    const kill = /^\s*kill\s+(query\s+|connection\s+)?(\d+)\s*;?\s*$/i.exec(query);
    if (!kill) return query;
    const id = Number(kill[2]);
    if (id < MysqlThreads.firstId) return query;
    const thread = this.#threads.get(id);
    if (!thread || thread.user !== user || thread.db !== db) return undefined;
    return `KILL ${kill[1]?.trim().toUpperCase() ?? ''} ${thread.serverId}`.replace(/\s+/g, ' ');
  }
}
