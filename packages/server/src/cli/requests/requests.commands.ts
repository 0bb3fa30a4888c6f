import { searchableKinds, searchRequestable } from './request-search.js';
import type { AccessRequestJson, CreateAccessRequest, ReviewVerdict } from '@postern/contracts';
import type { Command } from 'commander';
import { ConfigError } from '../../config/config-error.js';
import { print as defaultPrint } from '../program.js';
import { printTable, type Print } from '../table.js';
import { requestsClient } from './requests-client.js';

interface CreateFlags {
  roles?: string;
  resource?: string[];
  reason?: string;
  duration?: string;
  reviewers?: string;
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** `kind/name` (`node/web-1`), as `--resource` takes it. */
export function parseResource(text: string): NonNullable<CreateAccessRequest['resources']>[number] {
  const slash = text.indexOf('/');
  const kinds = ['node', 'app', 'db', 'kube_cluster', 'windows_desktop'] as const;
  const kind = text.slice(0, slash) as (typeof kinds)[number];
  if (slash <= 0 || !kinds.includes(kind) || slash === text.length - 1) {
    throw new ConfigError(
      `--resource ${text}: expected KIND/NAME, KIND one of ${kinds.join(', ')}`,
    );
  }
  return { kind, name: text.slice(slash + 1), clusterName: '' };
}

const what = (r: AccessRequestJson) =>
  [...r.roles, ...r.resources.map((res) => `${res.kind}/${res.name}`)].join(',');

function printRequests(requests: AccessRequestJson[], print: Print) {
  if (requests.length === 0) return print('No access requests.');
  printTable(
    ['ID', 'USER', 'STATE', 'REQUESTED', 'REASON', 'ACCESS UNTIL'],
    requests.map((r) => [r.id, r.user, r.state, what(r), r.reason, r.accessExpires]),
    print,
  );
}

function printRequest(r: AccessRequestJson, print: Print) {
  const rows = [
    ['ID:', r.id],
    ['User:', r.user],
    ['State:', r.state],
    ['Roles:', r.roles.join(', ') || '-'],
    ['Resources:', r.resources.map((res) => `${res.kind}/${res.name}`).join(', ') || '-'],
    ['Reason:', r.reason || '-'],
    ['Suggested reviewers:', r.suggestedReviewers.join(', ') || '-'],
    ['Created:', r.created],
    ['Access until:', r.accessExpires],
    ...r.reviews.map((review) => [
      'Review:',
      `${review.author} ${review.state.toLowerCase()} ${review.reason ? `"${review.reason}" ` : ''}at ${review.created}`,
    ]),
  ];
  printTable(['', ''], rows, (line) => line.trim() && print(line));
}

/**
 * `postern request search | create | ls | show | review | assume | drop` (docs/access-requests.md): the
 * console's access requests from a terminal, signed with the current `postern login`.
 */
export function addRequestCommands(
  program: Command,
  deps: { env?: NodeJS.ProcessEnv; print?: Print } = {},
) {
  const env = deps.env ?? process.env;
  const print = deps.print ?? defaultPrint;
  const request = program
    .command('request')
    .description('ask for roles or resources, review, assume');

  request
    .command('search')
    .description('the resources you may request (search_as_roles), with the command that asks')
    .requiredOption('--kind <kind>', `what to look for: ${searchableKinds.join(', ')}`)
    .option('--search <words>', 'words the name, address or labels must match', '')
    .action((flags: { kind: string; search: string }) =>
      searchRequestable(env, flags.kind, flags.search, print),
    );

  request
    .command('create')
    .description('request roles (--roles) or resources (--resource KIND/NAME), with a reason')
    .option('--roles <names>', 'comma-separated roles to request')
    .option('--resource <kind/name...>', 'a resource to request (node/NAME); repeatable')
    .option('--reason <text>', 'why you need it (some roles require one)')
    .option('--duration <duration>', "how long the access should last, e.g. '4h'")
    .option('--reviewers <names>', 'comma-separated users to suggest as reviewers')
    .action(async (flags: CreateFlags) => {
      const body: CreateAccessRequest = {
        roles: list(flags.roles),
        resources: (flags.resource ?? []).map(parseResource),
        reason: flags.reason ?? '',
        suggestedReviewers: list(flags.reviewers),
        ...(flags.duration ? { maxDuration: flags.duration } : {}),
      };
      const created = await (await requestsClient(env)).create(body);
      print(`Request ${created.id} is ${created.state.toLowerCase()}: ${what(created)}.`);
      print(`When approved: postern request assume ${created.id}`);
    });

  request
    .command('ls')
    .description('list your requests, or with --review those you may review')
    .option('--review', 'requests waiting for your review')
    .action(async (flags: { review?: boolean }) => {
      const client = await requestsClient(env);
      printRequests(await client.list(flags.review ? 'review' : 'mine'), print);
    });

  request
    .command('show <id>')
    .description('one request, with its reviews')
    .action(async (id: string) => printRequest(await (await requestsClient(env)).show(id), print));

  request
    .command('review <id>')
    .description('approve or deny a request')
    .option('--approve', 'approve it')
    .option('--deny', 'deny it')
    .option('--reason <text>', 'a comment the requester sees')
    .action(async (id: string, flags: { approve?: boolean; deny?: boolean; reason?: string }) => {
      if (Boolean(flags.approve) === Boolean(flags.deny)) {
        throw new ConfigError('give exactly one of --approve and --deny');
      }
      const verdict: ReviewVerdict = flags.approve ? 'APPROVED' : 'DENIED';
      const after = await (await requestsClient(env)).review(id, verdict, flags.reason ?? '');
      print(`Reviewed ${id}: it is now ${after.state.toLowerCase()}.`);
    });

  request
    .command('assume <id>')
    .description("re-issue the login's certificate with an approved request's roles")
    .action(async (id: string) => {
      const expires = await (await requestsClient(env)).assume([id]);
      print(`Assumed ${id}; your certificate is valid until ${expires}.`);
    });

  request
    .command('drop')
    .description("re-issue the login's certificate without assumed requests")
    .action(async () => {
      const expires = await (await requestsClient(env)).assume([]);
      print(`Dropped assumed requests; your certificate is valid until ${expires}.`);
    });
}
