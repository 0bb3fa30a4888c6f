import { formatAuditEvent } from '@postern/contracts';
import type { Command } from 'commander';
import { ConfigError } from '../../config/config-error.js';
import { parseDuration } from '../../config/duration.js';
import { parsePositiveFlag, parseSinceFlag } from '../flags.js';
import { print as defaultPrint } from '../program.js';
import { printTable, type Print } from '../table.js';
import { auditClient, type AuditReader } from './audit-client.js';
import { exportRound, readCursor, saveCursor, type ExportCursor } from './audit-export.js';

const typesOf = (text: string | undefined) =>
  text
    ?.split(',')
    .map((type) => type.trim())
    .filter(Boolean);

export interface AuditCommandsDeps {
  env?: NodeJS.ProcessEnv;
  print?: Print;
  /** Where export writes its lines (stdout by default). */
  write?: (lines: string) => Promise<void>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The signed client; tests may hand in their own. */
  reader?: (env: NodeJS.ProcessEnv) => Promise<AuditReader>;
  /** Stops `export --follow` between rounds (a signal, in production). */
  stopped?: () => boolean;
}

const writeStdout = (lines: string) =>
  new Promise<void>((resolve, reject) =>
    process.stdout.write(lines, (error) => (error ? reject(error) : resolve())),
  );

/**
 * `postern audit search` (the Audit Log in a terminal) and `postern audit export` (every event as
 * a JSON line, for a log shipper or a SIEM), signed with the current `postern login` and shown
 * only what the user's roles let them read (docs/audit.md).
 */
export function addAuditCommands(program: Command, deps: AuditCommandsDeps = {}) {
  const env = deps.env ?? process.env;
  const print = deps.print ?? defaultPrint;
  const now = deps.now ?? Date.now;
  const readerOf = deps.reader ?? auditClient;
  const audit = program.command('audit').description('the audit log: search it, export it');

  audit
    .command('search')
    .description('the latest events, newest first, as the Audit Log shows them')
    .option('--since <when>', 'how far back: 24h, 7d, or an RFC 3339 time', '24h')
    .option('--type <types>', 'only these event types, comma-separated (session.start,…)')
    .option('--search <text>', 'only events holding this text')
    .option('--limit <n>', 'at most this many', '100')
    .option('--format <format>', 'table, or json (the events as the API gives them)', 'table')
    .action(
      async (flags: {
        since: string;
        type?: string;
        search?: string;
        limit: string;
        format: string;
      }) => {
        if (flags.format !== 'table' && flags.format !== 'json') {
          throw new ConfigError(`--format must be table or json, got '${flags.format}'`);
        }
        const limit = parsePositiveFlag(flags.limit, '--limit');
        const pages = (await readerOf(env)).search;
        const to = new Date(now());
        const from = parseSinceFlag(flags.since, to.getTime());
        const events = [];
        let startKey: string | undefined;
        do {
          const page = await pages({
            from,
            to,
            order: 'desc',
            limit: Math.min(limit - events.length, 5000),
            types: typesOf(flags.type),
            search: flags.search,
            startKey,
          });
          events.push(...page.events);
          startKey = page.startKey || undefined;
        } while (startKey && events.length < limit);
        if (flags.format === 'json') return print(JSON.stringify(events, null, 2));
        if (events.length === 0) return print('No events in that time.');
        printTable(
          ['TIME', 'TYPE', 'CODE', 'USER', 'MESSAGE'],
          events.map((event) => {
            const row = formatAuditEvent(event);
            return [row.time, row.type, row.code, row.user || '-', row.message];
          }),
          print,
        );
      },
    );

  audit
    .command('export')
    .description(
      'every event, in the order stored, one JSON object a line, for a log shipper or a SIEM',
    )
    .option(
      '--since <when>',
      'where to start without a cursor: 24h, 7d, or an RFC 3339 time',
      '24h',
    )
    .option('--type <types>', 'only these event types, comma-separated')
    .option('--cursor <file>', 'keep the position here, and go on from it at the next start')
    .option('--follow', 'keep exporting new events as they come, until stopped')
    .option('--interval <duration>', 'with --follow, how often to look for new events', '5s')
    .action(
      async (flags: {
        since: string;
        type?: string;
        cursor?: string;
        follow?: boolean;
        interval: string;
      }) => {
        const intervalMs = parseDuration(flags.interval, '--interval');
        const file = flags.cursor;
        const saved = file ? await readCursor(file) : undefined;
        const from = saved && 'from' in saved ? saved.from : parseSinceFlag(flags.since, now());
        let cursor: ExportCursor | undefined = saved && 'startKey' in saved ? saved : undefined;
        const pages = (await readerOf(env)).stored;
        const sleep = deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
        const stopped = deps.stopped ?? stopOnSignal();
        for (;;) {
          cursor = await exportRound(pages, cursor, {
            from,
            types: typesOf(flags.type),
            write: deps.write ?? writeStdout,
            save: (position) => (file ? saveCursor(file, position) : Promise.resolve()),
          });
          if (!flags.follow || stopped()) return;
          await sleep(intervalMs);
          if (stopped()) return;
        }
      },
    );
}

/** True once SIGINT or SIGTERM came: the round in progress finishes, its cursor saved. */
function stopOnSignal(): () => boolean {
  let stop = false;
  const onSignal = () => {
    stop = true;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => stop;
}
