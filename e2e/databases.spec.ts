import {
  expect,
  test,
  type APIRequestContext,
  type BrowserContext,
  type Locator,
  type Page,
} from '@playwright/test';
import {
  startPrivateMariadb,
  type PrivateMariadb,
} from '../packages/server/src/testing/private-mariadb.testkit.js';
import { requireSubjectFor } from '../packages/server/src/wings/databases/mysql/require-subject.js';
import { postern, uniqueUser } from './support/identity.js';
import { startPostgres, type RunningPostgres } from './support/postgres.js';
import { createFromYaml } from './support/create-resources.js';
import { signIn } from './support/session.js';
import { expectConnected, expectOnScreen, screenText, terminal } from './support/terminal.js';
import { cluster, shared, siteApi as api } from './support/shared-server.js';

// Databases in the browser against the shared server: the Databases page lists what the spec
// made (one PostgreSQL through the web API, one MySQL through `postern create -f`), searches,
// and Connect gives the exact CLI command and opens the SQL console, whose statements run on a
// real PostgreSQL (or MariaDB) that trusts only Postern's database client CA, and land in the
// Audit Log and the session's recording.

// Fresh names for each run of the file (a worker may run it more than once).
let suite: string;
let pgName: string;
let mysqlName: string;
let roleName: string;
let userName: string;
const sql = 'create table t (n int); insert into t values (1),(2); select sum(n) from t;';

/**
 * Reaches only this spec's databases (other specs' stay out of its list), as two database users
 * and on two database names; creates databases and database server certificates; reads the audit
 * log and recordings.
 */
const role = () => `kind: role
version: v7
metadata:
  name: ${roleName}
spec:
  allow:
    db_labels: {suite: ${suite}}
    db_users: [alice_db, reader]
    db_names: [appdb, postgres]
    rules:
      - resources: [db, db_server]
        verbs: [list, read, create]
      - resources: [event, session, session_tracker]
        verbs: [list, read]
  deny: {}
`;

const mysqlDatabase = (mariadb: PrivateMariadb) => `kind: db
version: v3
metadata:
  name: ${mysqlName}
  description: Billing (e2e)
  labels: {suite: ${suite}, env: e2e}
spec:
  protocol: mysql
  uri: 127.0.0.1:${mariadb.port}
  ca_cert: ${JSON.stringify(mariadb.serverCertPem)}
  tls: {mode: verify-full}
`;

/** A web API call with the signed-in session: its cookie (the context's) and its bearer. */
async function post(request: APIRequestContext, bearer: string, url: string, data: object) {
  const response = await request.post(url, {
    headers: { Authorization: `Bearer ${bearer}` },
    data,
  });
  expect(response.ok(), `${url}: ${response.status()} ${await response.text()}`).toBe(true);
  return (await response.json()) as Record<string, unknown>;
}

/** The Databases row whose name is exactly `name`. */
const rowOf = (page: Page, name: string) =>
  page
    .getByRole('main')
    .getByRole('row')
    .filter({ has: page.getByText(name, { exact: true }) });

async function openDatabases(page: Page) {
  await page.goto(`/web/cluster/${cluster}/databases`);
  await expect(page.getByRole('heading', { name: 'Databases', level: 2 })).toBeVisible();
}

async function openConnect(page: Page, name: string): Promise<Locator> {
  await rowOf(page, name)
    .getByRole('button', { name: `Connect to ${name}` })
    .click();
  const dialog = page.getByRole('dialog', { name: `Connect to ${name}` });
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Types into one of Connect's pickers (which also suggests what the roles allow). */
async function pick(dialog: Locator, label: 'Database user' | 'Database name', value: string) {
  const input = dialog.getByRole('combobox', { name: label, exact: true });
  await input.fill(value);
  await expect(input).toHaveValue(value);
}

test.describe.serial('databases', () => {
  let context: BrowserContext;
  let page: Page;
  let postgres: RunningPostgres | undefined;
  let mariadb: PrivateMariadb | undefined;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    suite = uniqueUser('dbs');
    pgName = `orders-${suite}`;
    mysqlName = `billing-${suite}`;
    roleName = `db-console-${suite}`;
    userName = uniqueUser('dana');
    await createFromYaml(role());
    context = await browser.newContext({
      baseURL: process.env.POSTERN_E2E_URL,
      ignoreHTTPSErrors: true,
    });
    const session = await signIn(context, [roleName], userName);
    const bearer = String(session.bearerToken);
    // The role reached the server's storage from the command line; its watch brings it to the
    // server a moment later, and on a loaded machine after the first call would be judged.
    await expect
      .poll(async () => {
        const response = await context.request.get(api('context'), {
          headers: { Authorization: `Bearer ${bearer}` },
        });
        return response.ok() && (await response.json()).userAcl?.dbServers?.create === true;
      })
      .toBe(true);

    // A server certificate for the database from Postern's database client CA, and that CA:
    // the database trusts it for Postern's client certificates, Postern trusts it for the server.
    const signed = await post(context.request, bearer, api('sign/db'), { hostname: '127.0.0.1' });
    const [cert, key, ca] = [signed.cert, signed.key, signed.ca].map(String) as [
      string,
      string,
      string,
    ];
    postgres = await startPostgres({ cert, key, clientCa: ca });
    await postgres.sql('create role alice_db login');
    await postgres.sql('create role reader login');
    await postgres.sql('create database appdb owner alice_db');

    await post(context.request, bearer, api('databases'), {
      name: pgName,
      protocol: 'postgres',
      uri: `127.0.0.1:${postgres.port}`,
      description: 'Orders (e2e)',
      labels: { suite, env: 'e2e' },
      ca_cert: ca,
      tls: { mode: 'verify-full' },
    });
    // A MariaDB whose account signs in only by a certificate of the same CA (REQUIRE SUBJECT).
    mariadb = await startPrivateMariadb({ clientCaPem: ca });
    await mariadb.sql(`create database appdb;
      create user 'alice_db'@'%' ${requireSubjectFor('alice_db')};
      grant all on appdb.* to 'alice_db'@'%';`);
    await createFromYaml(mysqlDatabase(mariadb));
    page = await context.newPage();
  });

  test.afterAll(async () => {
    await context?.close();
    await postgres?.stop();
    await mariadb?.destroy();
    for (const name of [pgName, mysqlName]) {
      try {
        postern(shared(), 'rm', `db/${name}`);
      } catch {
        // Never created: the setup failed before it.
      }
    }
  });

  test('the Databases page lists them, searches, and Connect gives the exact command', async () => {
    await openDatabases(page);
    // The MySQL one came through the CLI: the server learns of it by its storage watch.
    await expect(async () => {
      await page.reload();
      await expect(rowOf(page, pgName)).toBeVisible({ timeout: 5_000 });
      await expect(rowOf(page, mysqlName)).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 30_000, intervals: [500] });

    const orders = rowOf(page, pgName);
    await expect(orders).toContainText('Orders (e2e)');
    await expect(orders.getByText('PostgreSQL', { exact: true })).toBeVisible();
    await expect(orders.getByText('Self-hosted', { exact: true })).toBeVisible();
    await expect(orders.getByText('Users: alice_db, reader', { exact: true })).toBeVisible();
    await expect(orders.getByText('Names: appdb, postgres', { exact: true })).toBeVisible();
    await expect(orders.getByText('env: e2e', { exact: true })).toBeVisible();
    await expect(orders.getByText(`suite: ${suite}`, { exact: true })).toBeVisible();
    await expect(rowOf(page, mysqlName).getByText('MySQL/MariaDB', { exact: true })).toBeVisible();
    // Only this spec's two: the role reaches no other database.
    await expect(page.getByRole('navigation', { name: 'Pages of databases' })).toContainText(
      '1–2 of 2',
    );

    // Search goes to the server and keeps the match only.
    const search = page.getByRole('searchbox', { name: 'Search databases' });
    await search.fill('billing');
    await search.press('Enter');
    await expect(page).toHaveURL(/[?&]search=billing/);
    await expect(rowOf(page, mysqlName)).toBeVisible();
    await expect(rowOf(page, pgName)).toHaveCount(0);
    await search.fill('');
    await search.press('Enter');
    await expect(rowOf(page, pgName)).toBeVisible();

    // Connect: the command follows the chosen database user and name.
    const dialog = await openConnect(page, pgName);
    const command = dialog.getByLabel('Connect command');
    await expect(command).toHaveText(
      `postern db connect ${pgName} --db-user alice_db --db-name appdb`,
    );
    await pick(dialog, 'Database user', 'reader');
    await pick(dialog, 'Database name', 'postgres');
    await expect(command).toHaveText(
      `postern db connect ${pgName} --db-user reader --db-name postgres`,
    );
    await expect(dialog.getByRole('link', { name: 'Open SQL console' })).toHaveAttribute(
      'href',
      `/web/cluster/${cluster}/databases/${pgName}/console/reader/postgres`,
    );
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // MySQL: the command, and the SQL console too.
    const billing = await openConnect(page, mysqlName);
    await expect(billing.getByLabel('Connect command')).toHaveText(
      `postern db connect ${mysqlName} --db-user alice_db --db-name appdb`,
    );
    await expect(billing.getByRole('link', { name: 'Open SQL console' })).toHaveAttribute(
      'href',
      `/web/cluster/${cluster}/databases/${mysqlName}/console/alice_db/appdb`,
    );
    await page.keyboard.press('Escape');
  });

  test('Open SQL console runs SQL on the real PostgreSQL, recalls it, cancels with Ctrl-C', async () => {
    test.setTimeout(120_000);
    await openDatabases(page);
    const dialog = await openConnect(page, pgName);
    const [sqlConsole] = await Promise.all([
      context.waitForEvent('page'),
      dialog.getByRole('link', { name: 'Open SQL console' }).click(),
    ]);
    await expect(sqlConsole).toHaveURL(
      new RegExp(`/web/cluster/${cluster}/databases/${pgName}/console/alice_db/appdb$`),
    );
    await expect(
      sqlConsole.getByRole('heading', { name: `SQL console: ${pgName}`, level: 1 }),
    ).toBeVisible();
    await expect(sqlConsole.getByLabel('Database user')).toHaveText('alice_db');
    await expect(sqlConsole.getByLabel('Database name')).toHaveText('appdb');
    await expectConnected(sqlConsole);
    // Rows are read with their trailing spaces trimmed: the prompt is `appdb=> `.
    await expect.poll(async () => lastLine(await screenText(sqlConsole))).toBe('appdb=>');

    await terminal(sqlConsole).click();
    await sqlConsole.keyboard.type(sql);
    await sqlConsole.keyboard.press('Enter');
    await expectOnScreen(sqlConsole, 'INSERT 0 2\n sum\n-----\n   3\n(1 row)');

    // Up recalls the statement onto a new prompt; run again, the table exists now.
    await sqlConsole.keyboard.press('ArrowUp');
    await expect.poll(async () => lastLine(await screenText(sqlConsole))).toBe(`appdb=> ${sql}`);
    await sqlConsole.keyboard.press('Enter');
    await expectOnScreen(sqlConsole, 'ERROR:  relation "t" already exists');

    // Ctrl-C cancels a running statement through PostgreSQL's cancel path.
    await sqlConsole.keyboard.type('select pg_sleep(60);');
    await sqlConsole.keyboard.press('Enter');
    await expect
      .poll(() =>
        postgres!.sql(
          "select count(*) from pg_stat_activity where query like 'select pg_sleep(60)%' and state = 'active'",
        ),
      )
      .toBe('1\n');
    await sqlConsole.keyboard.press('Control+C');
    await expectOnScreen(sqlConsole, 'ERROR:  canceling statement due to user request');
    await expect.poll(async () => lastLine(await screenText(sqlConsole))).toBe('appdb=>');

    // \q ends the session as a program that exited normally.
    await sqlConsole.keyboard.type('\\q');
    await sqlConsole.keyboard.press('Enter');
    const ended = sqlConsole.getByRole('status').filter({ hasText: 'disconnected:' });
    await expect(ended).toHaveAttribute('data-ended', 'normally');
    await sqlConsole.close();
  });

  test('the statements are in the Audit Log and the session’s recording plays them', async () => {
    const main = page.getByRole('main');
    const search = main.getByRole('searchbox', { name: 'Search events' });
    const query = main.getByRole('row').filter({
      hasText: `User [${userName}] has executed query [${sql}] in database [appdb] on [${pgName}]`,
    });
    // Statement events are written in the background: search again until they are there.
    await expect(async () => {
      await page.goto(`/web/cluster/${cluster}/audit`);
      await search.fill(pgName);
      await search.press('Enter');
      await expect(query.first()).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 30_000, intervals: [1_000] });
    const started = main.getByRole('row').filter({
      hasText: `User [${userName}] has connected to database [appdb] on [${pgName}]`,
    });
    await expect(started.first()).toBeVisible();

    // The session's recording: the console's screen, statement and result, in the player.
    const sid = await endedSessionId(page);
    await page.goto(`/web/cluster/${cluster}/session/${sid}?recordingType=ssh`);
    await expect
      .poll(async () => (await playerText(page)).replace(/\s+/g, ' '), { timeout: 30_000 })
      .toContain(`appdb=> ${sql}`);
    await expect.poll(() => playerText(page), { timeout: 30_000 }).toContain('   3\n(1 row)');
  });

  test('the SQL console on MariaDB runs SQL as mariadb prints it and kills a query with Ctrl-C', async () => {
    test.setTimeout(120_000);
    await openDatabases(page);
    const dialog = await openConnect(page, mysqlName);
    const [sqlConsole] = await Promise.all([
      context.waitForEvent('page'),
      dialog.getByRole('link', { name: 'Open SQL console' }).click(),
    ]);
    await expect(
      sqlConsole.getByRole('heading', { name: `SQL console: ${mysqlName}`, level: 1 }),
    ).toBeVisible();
    await expectConnected(sqlConsole);
    await expect.poll(async () => lastLine(await screenText(sqlConsole))).toBe('appdb=>');

    await terminal(sqlConsole).click();
    await sqlConsole.keyboard.type(
      'create table t (n int); insert into t values (1),(2); select sum(n) as total from t;',
    );
    await sqlConsole.keyboard.press('Enter');
    await expectOnScreen(sqlConsole, 'Query OK, 2 rows affected');
    await expectOnScreen(sqlConsole, ' total\n-------\n     3\n(1 row)');

    // Ctrl-C: KILL QUERY on a second connection, which the proxy maps to the server's thread.
    await sqlConsole.keyboard.type('select sleep(60);');
    await sqlConsole.keyboard.press('Enter');
    await expect
      .poll(() =>
        mariadb!.sql(
          "select count(*) from information_schema.processlist where info = 'select sleep(60)'",
        ),
      )
      .toBe('1\n');
    await sqlConsole.keyboard.press('Control+C');
    await expectOnScreen(sqlConsole, 'ERROR 1317 (70100): Query execution was interrupted');
    await expect.poll(async () => lastLine(await screenText(sqlConsole))).toBe('appdb=>');
    await sqlConsole.keyboard.type('\\q');
    await sqlConsole.keyboard.press('Enter');
    const ended = sqlConsole.getByRole('status').filter({ hasText: 'disconnected:' });
    await expect(ended).toHaveAttribute('data-ended', 'normally');
    await sqlConsole.close();
  });
});

function lastLine(screen: string): string {
  return (
    screen
      .split('\n')
      .filter((line) => line.trim() !== '')
      .at(-1) ?? ''
  );
}

/** What the player's terminal shows (xterm's DOM rows, no-break spaces as spaces). */
async function playerText(page: Page): Promise<string> {
  const rows = await page.locator('.xterm-rows > div').allTextContents();
  return rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

/** The id of this spec's SQL console session, from its end event in the audit log. */
async function endedSessionId(page: Page): Promise<string> {
  let sid = '';
  await expect
    .poll(
      async () => {
        sid = await page.evaluate(
          async ([url, database]) => {
            const token = JSON.parse(localStorage.getItem('grv_teleport_token') ?? '{}')
              .accessToken as string;
            const to = new Date(Date.now() + 60_000).toISOString();
            const from = new Date(Date.now() - 3_600_000).toISOString();
            const response = await fetch(
              `${url}?from=${from}&to=${to}&search=${encodeURIComponent(database)}`,
              { headers: { Authorization: `Bearer ${token}` } },
            );
            if (!response.ok) return '';
            const { events } = (await response.json()) as {
              events: { server_hostname?: string; sid?: string }[];
            };
            return events.find((event) => event.server_hostname === database)?.sid ?? '';
          },
          [api('events/search/sessions'), pgName] as const,
        );
        return sid;
      },
      { message: 'the session end event' },
    )
    .not.toBe('');
  return sid;
}
