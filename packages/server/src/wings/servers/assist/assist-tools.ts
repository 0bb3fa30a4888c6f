import { assistCommandMaxNodes, type AssistCommand } from '@postern/contracts';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { InventoryService } from '../nodes/inventory.service.js';
import { listResourcesTool, proposeConnectionTool } from './assist-resources.js';
import type { ModelTool } from './chat-model.js';

/**
 * What the model may do in a turn: look at the servers its user may reach (RBAC applied, as the
 * Servers page applies it), and propose a command on some of them; and look at the other
 * resources they may reach and offer to connect to one (assist-resources.ts). Nothing here runs
 * or opens anything: a proposal is shown to the user, who runs it (or connects) or not.
 */
export const assistTools: ModelTool[] = [
  {
    type: 'function',
    function: {
      name: 'list_servers',
      description:
        'Lists the servers the user may reach: id, hostname, labels and the logins the user may use on each.',
      parameters: {
        type: 'object',
        properties: {
          search: { type: 'string', description: 'Words the hostname or labels must hold.' },
          labels: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description: 'Labels every server listed must carry, name to value.',
          },
        },
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'propose_command',
      description:
        'Proposes a shell command for the user to run on servers. The user sees it and decides; you get the output afterwards.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The shell command.' },
          login: { type: 'string', description: 'The login (Unix user) to run it as.' },
          servers: {
            type: 'array',
            items: { type: 'string' },
            description: 'Hostnames or ids of the servers to run it on.',
          },
          labels: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description: 'Or: run it on every server carrying these labels.',
          },
        },
        required: ['command'],
      },
    },
  },
  listResourcesTool,
  proposeConnectionTool,
];

export interface ServerView {
  id: string;
  hostname: string;
  labels: Record<string, string>;
  logins: string[];
}

/** The most servers one `list_servers` answer holds (the model's context is not unbounded). */
const listLimit = 100;

export class AssistServers {
  constructor(private readonly inventory: Pick<InventoryService, 'list'>) {}

  /** The servers the role set may see, with the logins it may use on each. */
  visible(roleSet: RoleSet, search = '', limit = 1000): ServerView[] {
    const page = this.inventory.list({ search, query: '', startKey: '', limit }, roleSet);
    return page.items.map((row) => ({
      id: row.node.metadata.name,
      hostname: row.node.spec.hostname,
      labels: row.labels,
      logins: row.logins,
    }));
  }

  /** The answer to `list_servers`, as JSON text for the model. */
  list(roleSet: RoleSet, args: { search?: unknown; labels?: unknown }): string {
    const search = typeof args.search === 'string' ? args.search : '';
    const servers = this.visible(roleSet, search).filter(carrying(labelsOf(args.labels)));
    const shown = servers.slice(0, listLimit);
    const more = servers.length - shown.length;
    return JSON.stringify({ servers: shown, ...(more > 0 ? { not_shown: more } : {}) });
  }

  /**
   * The proposal `propose_command` describes, on servers the user may reach, or the reason it
   * cannot be made (for the model to try again).
   */
  propose(
    roleSet: RoleSet,
    args: { command?: unknown; login?: unknown; servers?: unknown; labels?: unknown },
  ): { ok: true; command: AssistCommand } | { ok: false; reason: string } {
    const command = typeof args.command === 'string' ? args.command.trim() : '';
    if (!command) return { ok: false, reason: 'name the command to run' };
    const names = Array.isArray(args.servers)
      ? args.servers.filter((name): name is string => typeof name === 'string')
      : [];
    const labels = labelsOf(args.labels);
    if (names.length === 0 && Object.keys(labels).length === 0) {
      return { ok: false, reason: 'name the servers (hostnames or ids) or labels to run it on' };
    }
    const wanted = new Set(names.map((name) => name.toLowerCase()));
    const chosen = this.visible(roleSet)
      .filter(
        (server) =>
          wanted.size === 0 ||
          wanted.has(server.id.toLowerCase()) ||
          wanted.has(server.hostname.toLowerCase()),
      )
      .filter(carrying(labels));
    if (chosen.length === 0) {
      return { ok: false, reason: 'no server the user may reach matches; list them first' };
    }
    if (chosen.length > assistCommandMaxNodes) {
      return {
        ok: false,
        reason: `that is ${chosen.length} servers: at most ${assistCommandMaxNodes} at once`,
      };
    }
    const logins = commonLogins(chosen);
    if (logins.length === 0) {
      return { ok: false, reason: 'the user has no login they may use on all of these servers' };
    }
    const asked = typeof args.login === 'string' ? args.login : '';
    const login = logins.includes(asked) ? asked : (logins[0] ?? '');
    const nodes = chosen.map(({ id, hostname }) => ({ id, hostname }));
    return { ok: true, command: { command, login, nodes, logins } };
  }
}

function labelsOf(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

const carrying = (labels: Record<string, string>) => (server: ServerView) =>
  Object.entries(labels).every(([name, value]) => server.labels[name] === value);

function commonLogins(servers: ServerView[]): string[] {
  const [first, ...rest] = servers;
  if (!first) return [];
  return first.logins.filter((login) => rest.every((server) => server.logins.includes(login)));
}
