import { recordingRow, type RecordingRow } from '@postern/contracts';
import type { Command } from 'commander';
import { ConfigError } from '../../config/config-error.js';
import { formatDuration, parseDuration } from '../../config/duration.js';
import { parsePositiveFlag, parseSinceFlag } from '../flags.js';
import { print as defaultPrint } from '../program.js';
import { printTable, type Print } from '../table.js';
import { playRecording, type PlayOptions, type PlayTarget } from './play.js';
import { recordingsClient } from './recordings-client.js';

function parseSpeed(text: string): number {
  const speed = Number(text);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 1000) {
    throw new ConfigError(`--speed must be a number above 0, such as 2 or 0.5, got '${text}'`);
  }
  return speed;
}

function printRecordings(rows: RecordingRow[], print: Print) {
  if (rows.length === 0) return print('No recordings in that time.');
  printTable(
    ['SID', 'TYPE', 'USERS', 'HOST', 'LOGIN', 'ENDED', 'DURATION', ''],
    rows.map((row) => [
      row.sid,
      row.recordingType,
      row.users,
      row.hostname,
      row.login || '-',
      row.createdDate.toISOString(),
      formatDuration(Math.round(row.duration / 1000) * 1000),
      row.playable ? '' : `(${row.description})`,
    ]),
    print,
  );
}

/**
 * `postern recordings ls` and `postern play SID` (docs/recordings.md): the console's Session
 * Recordings and its player in a terminal, signed with the current `postern login`.
 */
export function addRecordingsCommands(
  program: Command,
  deps: {
    env?: NodeJS.ProcessEnv;
    print?: Print;
    out?: PlayTarget;
    /** Told why a recording ended early; by default on stderr, and the exit code is 1. */
    damaged?: (message: string) => void;
  } = {},
) {
  const env = deps.env ?? process.env;
  const print = deps.print ?? defaultPrint;
  const damaged =
    deps.damaged ??
    ((message: string) => {
      console.error(`postern: ${message}; postern verify names the damage`);
      process.exitCode = 1;
    });
  const out: PlayTarget = deps.out ?? {
    write: (data) => void process.stdout.write(data),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => performance.now(),
  };

  program
    .command('recordings')
    .description('session recordings')
    .command('ls')
    .description('the sessions that ended lately, newest first, with their recordings')
    .option('--since <when>', 'how far back, such as 24h or 7d, or an RFC 3339 time', '7d')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (flags: { since: string; limit: string }) => {
      const limit = parsePositiveFlag(flags.limit, '--limit');
      const to = new Date();
      const from = parseSinceFlag(flags.since, to.getTime());
      const client = await recordingsClient(env);
      const rows: RecordingRow[] = [];
      let startKey: string | undefined;
      do {
        const page = await client.list(from, to, startKey);
        rows.push(...page.events.map(recordingRow));
        startKey = page.startKey || undefined;
      } while (startKey && rows.length < limit);
      printRecordings(rows.slice(0, limit), print);
    });

  program
    .command('play <sid>')
    .description('play a terminal session recording here, at its pace')
    .option('--speed <n>', 'how much faster than real time', '1')
    .option('--max-idle <duration>', 'skip the rest of any pause longer than this, such as 2s')
    .option(
      '--format <format>',
      'text (play it) or cast (print asciicast v2, for asciinema)',
      'text',
    )
    .action(async (sid: string, flags: { speed: string; maxIdle?: string; format: string }) => {
      if (flags.format !== 'text' && flags.format !== 'cast') {
        throw new ConfigError(`--format must be text or cast, got '${flags.format}'`);
      }
      const options: PlayOptions = {
        speed: parseSpeed(flags.speed),
        format: flags.format,
        ...(flags.maxIdle
          ? { maxIdleSeconds: parseDuration(flags.maxIdle, '--max-idle') / 1000 }
          : {}),
      };
      const damage = await playRecording(await recordingsClient(env), sid, options, out);
      if (damage) damaged(damage);
    });
}
