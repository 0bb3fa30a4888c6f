import { unifiedResourceKinds } from '@postern/contracts';
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
