import { activeSessionListSchema, apiPaths, type ActiveSessionJson } from '@postern/contracts';
import type { Command } from 'commander';
import { leafNamed } from '../login/nodes.js';
import { signedClient } from '../login/signed-client.js';
import { print as defaultPrint } from '../program.js';
import { printTable, type Print } from '../table.js';

/**
 * Who is in a session: its owner first, then the others who joined, each once; `(lost)` after a
 * user whose every connection dropped, while the session waits for them to resume it.
 */
function usersOf(session: ActiveSessionJson): string {
  const users = [...new Set([session.owner, ...session.parties.map((party) => party.user)])];
  const lost = (user: string) => {
    const theirs = session.parties.filter((party) => party.user === user);
    return theirs.length > 0 && theirs.every((party) => party.connection_lost_at);
  };
  return users.map((user) => (lost(user) ? `${user}(lost)` : user)).join(',');
}

/** `node-1 (root)` for a terminal, the name alone for an app, a database or a desktop. */
function targetOf(session: ActiveSessionJson): string {
  return session.login ? `${session.server_hostname} (${session.login})` : session.server_hostname;
}

function printSessions(sessions: ActiveSessionJson[], print: Print, leaf: string | undefined) {
  if (sessions.length === 0) return print('No live sessions that you may see.');
  printTable(
    ['ID', 'KIND', 'TARGET', 'USERS', 'STARTED', 'YOU MAY JOIN AS'],
    sessions.map((session) => [
      session.id,
      session.kind,
      targetOf(session),
      usersOf(session),
      session.created,
      session.participantModes.join(',') || '-',
    ]),
    print,
  );
  if (sessions.some((session) => session.participantModes.length > 0)) {
    print('');
    const cluster = leaf ? ` --cluster ${leaf}` : '';
    print(`Join one with: postern join${cluster} ID [--mode observer|moderator|peer]`);
  }
}

/**
 * `postern sessions ls`: the console's Active Sessions in a terminal, signed with the current
 * `postern login`, so `postern join` needs no trip to the console for the session's id.
 */
export function addSessionsCommands(
  program: Command,
  deps: { env?: NodeJS.ProcessEnv; print?: Print } = {},
) {
  const env = deps.env ?? process.env;
  const print = deps.print ?? defaultPrint;
  program
    .command('sessions')
    .description('live sessions')
    .command('ls')
    .description('the live sessions you may see, newest first, with the modes you may join in')
    .option('--cluster <leaf>', "a trusted leaf cluster's, through this proxy")
    .action(async (flags: { cluster?: string }) => {
      const { get, profile } = await signedClient(env);
      // A leaf's come through the root's forwarder, which signs the user in there.
      const leaf = leafNamed(flags.cluster, profile);
      const path = leaf ? apiPaths.activeSessions(leaf) : apiPaths.cliActiveSessions;
      const { sessions } = await get(path, activeSessionListSchema);
      printSessions(sessions, print, leaf);
    });
}
