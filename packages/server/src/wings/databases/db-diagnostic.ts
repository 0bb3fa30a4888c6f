import type { ConnectionTrace } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import { badParameter, notFound } from '../../errors.js';
import { firstChunk } from '../../net/first-chunk.js';
import type {
  ConnectionTest,
  DiagnosticCaller,
} from '../../modules/connection-diagnostics/connection-diagnostics.js';
import type { SignInFailure } from './db-sign-in-test.js';
import type { DatabasesService } from './databases.service.js';
import { answerDeadline } from './answer-deadline.js';
import { routeRefusal } from './db-access.js';
import { databaseAddress, type DatabaseRecord } from './db-kind.js';
import { sslRequest } from './postgres/pg-wire.js';

interface DatabaseDiagnosticDeps {
  databases: Pick<DatabasesService, 'get'>;
  /** The wing's dial: the database's own address, or through its agent's tunnel. */
  dial: (db: DatabaseRecord) => Promise<Duplex>;
  /** How long the database has to answer (default 5 s). */
  timeoutMs?: number;
  /**
   * Signs in to the database as the caller (db-sign-in-test.ts); absent, the test stops once the
   * database answers.
   */
  signIn?: (
    db: DatabaseRecord,
    caller: DiagnosticCaller,
    route: { dbUser: string; dbName: string },
    timeoutMs: number,
  ) => Promise<SignInFailure | undefined>;
}

const passed = (trace_type: ConnectionTrace['trace_type'], details: string): ConnectionTrace => ({
  trace_type,
  status: 'success',
  details,
  error: '',
});
const failed = (
  trace_type: ConnectionTrace['trace_type'],
  details: string,
  error: string,
): ConnectionTrace => ({ trace_type, status: 'failed', details, error });

/**
 * Discover's connection test of a database (`resource_kind: "db"`), as the caller: do their
 * roles reach the database (`rbac_database`), do they allow that database user and name
 * (`rbac_database_login`, the same check a connection gets: `routeRefusal`), and does the
 * database answer where the proxy dials it (`connectivity`: a TCP connection, or one through
 * its agent, and the database's first word on it), and can they sign in as that
 * database user (`database_db_user`) and open that database (`database_db_name`): a session in
 * their name, audited as any, closed at once. It stops at the first step that fails, so a caller
 * never learns whether a database their roles refuse can be reached.
 */
export function databaseConnectionTest(deps: DatabaseDiagnosticDeps): ConnectionTest {
  const timeoutMs = deps.timeoutMs ?? 5000;
  return async (request, caller) => {
    const dbUser = request.database_user?.trim() ?? '';
    if (!dbUser) throw badParameter('database_user: name the database user to test');
    const db = deps.databases.get(request.resource_name);
    if (!db) throw notFound(`no database named ${request.resource_name}`);
    const name = db.metadata.name;
    // libpq opens the database named like the user when none is given; MySQL opens none.
    const dbName = request.database_name?.trim() || (db.spec.protocol === 'postgres' ? dbUser : '');
    const traces: ConnectionTrace[] = [];

    if (!caller.roleSet.canAccess('db', { labels: db.metadata.labels, name: db.metadata.name })) {
      traces.push(
        failed(
          'rbac_database',
          `None of your roles reaches database ${name}: a role's db_labels must match its labels.`,
          `access to db denied: ${caller.user} may not reach database ${name}`,
        ),
      );
      return traces;
    }
    traces.push(passed('rbac_database', `Your roles reach database ${name}.`));

    const asked = dbName
      ? `database user "${dbUser}" and database "${dbName}"`
      : `database user "${dbUser}"`;
    const refusal = routeRefusal(caller.roleSet, { user: caller.user, db, dbUser, dbName });
    if (refusal) {
      traces.push(
        failed(
          'rbac_database_login',
          `Your roles do not allow ${asked} on ${name}: see db_users and db_names in your roles.`,
          refusal,
        ),
      );
      return traces;
    }
    traces.push(passed('rbac_database_login', `Your roles allow ${asked} on ${name}.`));

    const { host, port } = databaseAddress(db);
    const where =
      db.source === 'agent'
        ? `${host}:${port} through agent ${db.agentId ?? ''}`
        : `${host}:${port}`;
    try {
      await probe(db, deps.dial, timeoutMs);
      traces.push(passed('connectivity', `Database ${name} answered at ${where}.`));
    } catch (error) {
      traces.push(
        failed(
          'connectivity',
          `Database ${name} did not answer at ${where}.`,
          `cannot reach database ${name} at ${where}: ${(error as Error).message}`,
        ),
      );
      return traces;
    }
    if (!deps.signIn) return traces;
    const failure = await deps.signIn(db, caller, { dbUser, dbName }, timeoutMs);
    traces.push(...signInTraces(name, { dbUser, dbName }, failure));
    return traces;
  };
}

/** The sign-in's steps: as the database user, then into the database. */
function signInTraces(
  name: string,
  { dbUser, dbName }: { dbUser: string; dbName: string },
  failure: SignInFailure | undefined,
): ConnectionTrace[] {
  const signedIn = passed('database_db_user', `Signed in to ${name} as "${dbUser}".`);
  if (failure?.step === 'database_db_user') {
    return [
      failed(
        'database_db_user',
        `Could not sign in to ${name} as "${dbUser}": does the database have that user, and trust Postern's database client CA for it?`,
        failure.error,
      ),
    ];
  }
  if (failure) {
    return [
      signedIn,
      failed('database_db_name', `Could not open database "${dbName}" on ${name}.`, failure.error),
    ];
  }
  return [signedIn, passed('database_db_name', `Opened database "${dbName}" on ${name}.`)];
}

/**
 * Dials the database and waits for its first word: PostgreSQL's answer to an SSLRequest (which
 * must be S: Postern never connects without TLS), MySQL's greeting. Through an agent a dial
 * alone proves only the tunnel, so the answer is what shows the database is there.
 */
async function probe(
  db: DatabaseRecord,
  dial: DatabaseDiagnosticDeps['dial'],
  timeoutMs: number,
): Promise<void> {
  let socket: Duplex | undefined;
  const { deadline: timeout, clear } = answerDeadline(timeoutMs);
  const dialled = dial(db).then((stream) => {
    socket = stream;
    return stream;
  });
  // A dial that completes after the deadline is closed at once.
  dialled.catch(() => undefined);
  try {
    const stream = await Promise.race([dialled, timeout]);
    if (db.spec.protocol === 'postgres') stream.write(sslRequest());
    const first = await Promise.race([
      firstChunk(stream, 'it closed the connection without a word'),
      timeout,
    ]);
    checkAnswer(db, first);
  } finally {
    clear();
    if (socket) socket.destroy();
    else
      void dialled.then(
        (late) => late.destroy(),
        () => undefined,
      );
  }
}

function checkAnswer(db: DatabaseRecord, first: Buffer): void {
  if (db.spec.protocol === 'postgres') {
    if (first[0] === 0x53 /* S */) return;
    if (first[0] === 0x4e /* N */) {
      throw new Error('it does not accept TLS (ssl = off?), and Postern never connects without it');
    }
    throw new Error('it did not answer as PostgreSQL does');
  }
  // MySQL: a packet (3-byte length, sequence) holding the greeting, or an error (0xff) instead.
  if (first.length >= 5 && first[4] === 0xff) {
    const text = first
      .subarray(7)
      .toString('utf8')
      .replace(/[^\x20-\x7e]/g, '');
    throw new Error(`it refused the connection: ${text || 'no reason given'}`);
  }
}
