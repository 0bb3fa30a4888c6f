import {
  unifiedResourceKinds,
  unifiedResourceName,
  unifiedResourceSchema,
  type AssistConnection,
} from '@postern/contracts';
import { userAcl } from '../../../access-control/rbac/acl.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { ResourceListers } from '../../../http/resource-listers.js';

/** The most resources one `list_resources` answer holds (the model's context is not unbounded). */
const listLimit = 100;

/**
 * What the model is told of a resource: the fields that say what it is and how it is reached,
 * from its own list's item (the lists' shapes differ by kind; fields a kind lacks are left out).
 */
const shownFields = [
  'name',
  'hostname',
  'description',
  'desc',
  'uri',
  'publicAddr',
  'protocol',
  'type',
  'addr',
  'labels',
  'tags',
  'sshLogins',
  'database_users',
  'database_names',
  'kubernetes_users',
  'kubernetes_groups',
] as const;

/**
 * `list_resources`: the applications, databases, Kubernetes clusters, desktops and servers the
 * user may reach, as the Resources page lists them for them (each kind's own RBAC filter, and
 * only the kinds their ACL lets them list). The model may describe them and say how to connect;
 * it reaches none of them itself.
 */
export class AssistResources {
  constructor(
    private readonly listers: ResourceListers,
    private readonly clusterName: string,
  ) {}

  list(roleSet: RoleSet, args: { kinds?: unknown; search?: unknown }): string {
    const search = typeof args.search === 'string' ? args.search : '';
    const asked = Array.isArray(args.kinds)
      ? args.kinds.filter((kind): kind is string =>
          (unifiedResourceKinds as readonly string[]).includes(String(kind)),
        )
      : [];
    let found: Record<string, unknown>[];
    try {
      found = this.listers
        .readable(userAcl(roleSet), asked)
        .flatMap((lister) =>
          lister
            .all({ search, query: '' }, roleSet, this.clusterName)
            .map((item) => ({ kind: lister.kind, ...pick(item as Record<string, unknown>) })),
        );
    } catch (error) {
      // A search the lists refuse (too long, say) is the model's to rephrase.
      return JSON.stringify({ error: error instanceof Error ? error.message : 'bad search' });
    }
    const shown = found.slice(0, listLimit);
    const more = found.length - shown.length;
    return JSON.stringify({ resources: shown, ...(more > 0 ? { not_shown: more } : {}) });
  }

  /**
   * The connection `propose_connection` describes: one resource of a kind the user may list and
   * that their roles reach, found by its name (a server also by its id), as the Resources page
   * lists it for them; or why not, for the model to try again.
   */
  propose(
    roleSet: RoleSet,
    args: { kind?: unknown; name?: unknown },
  ): { ok: true; connection: AssistConnection } | { ok: false; reason: string } {
    const kinds = unifiedResourceKinds as readonly string[];
    const kind = typeof args.kind === 'string' && kinds.includes(args.kind) ? args.kind : '';
    if (!kind) return { ok: false, reason: `name the kind: ${kinds.join(', ')}` };
    const name = typeof args.name === 'string' ? args.name.trim().toLowerCase() : '';
    if (!name) return { ok: false, reason: 'name the resource' };
    const [lister] = this.listers.readable(userAcl(roleSet), [kind]);
    if (!lister) return { ok: false, reason: `the user may not list resources of kind ${kind}` };
    for (const item of lister.all({ search: '', query: '' }, roleSet, this.clusterName)) {
      const parsed = unifiedResourceSchema.safeParse({ kind: lister.kind, ...item });
      if (!parsed.success) continue;
      const resource = parsed.data;
      const id = resource.kind === 'node' ? resource.id.toLowerCase() : undefined;
      if (unifiedResourceName(resource).toLowerCase() === name || id === name) {
        return { ok: true, connection: { resource } };
      }
    }
    return { ok: false, reason: `the user reaches no ${kind} named ${name}; list them first` };
  }
}

function pick(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of shownFields) {
    const value = item[field];
    if (value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0)) {
      out[field] = value;
    }
  }
  return out;
}

export const proposeConnectionTool = {
  type: 'function' as const,
  function: {
    name: 'propose_connection',
    description:
      "Shows the user a card to connect to one resource they may reach, with the console's own Connect (they pick the login, database user or command there). Use it when they want to reach an application, database, Kubernetes cluster, desktop or server; call list_resources first.",
    parameters: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: [...unifiedResourceKinds] },
        name: { type: 'string', description: "The resource's name (a server's hostname)." },
      },
      required: ['kind', 'name'],
    },
  },
};

export const listResourcesTool = {
  type: 'function' as const,
  function: {
    name: 'list_resources',
    description:
      'Lists the applications, databases, Kubernetes clusters, desktops and servers the user may reach: kind, name, address or description, labels, and the database or Kubernetes users they may use. You cannot connect to them; tell the user how.',
    parameters: {
      type: 'object',
      properties: {
        kinds: {
          type: 'array',
          items: { type: 'string', enum: [...unifiedResourceKinds] },
          description: 'Only these kinds (all when left out).',
        },
        search: { type: 'string', description: 'Words the name, address or labels must hold.' },
      },
    },
  },
};
