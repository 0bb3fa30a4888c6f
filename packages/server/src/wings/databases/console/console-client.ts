import type { Duplex } from 'node:stream';

/** Rows of one result the console keeps to show; the rest are counted, not held. */
export const maxShownRows = 1000;

/** Opens a stream to the database through its engine, as this user: the path its CLI takes. */
export type OpenEngineStream = () => Duplex;

/** What the connection tells the console between statements. */
export interface ConsoleClientEvents {
  /** A notice or warning the database sent, as one line. */
  notice(text: string): void;
  /** The connection ended on its own (the database, a lock, the proxy closing). */
  lost(why: string): void;
}

/**
 * One SQL console's connection, in its database's dialect: how it signs in, runs what was
 * typed, prints the answer and cancels, the way that database's own command-line client does.
 * The console channel around it is the same for every dialect.
 */
export interface ConsoleClient {
  /** Signs in through the engine; rejects with the text to print when it cannot. */
  connect(events: ConsoleClientEvents): Promise<void>;
  /** Runs one entry (one statement or more); resolves to the text to print, results or error. */
  run(text: string): Promise<string>;
  /** Asks the database to stop the running statement, on a connection of its own. */
  cancel(): void;
  end(): void;
  /** The database the session is in now (a statement may have moved it). */
  readonly database: string;
  /** Meta commands answered by a query in this dialect (`\dt`, `\l`). */
  readonly metaQueries: Readonly<Record<string, string>>;
}
