import { createJoinTokenRequestSchema } from '@postern/contracts';
import { userInfo } from 'node:os';
import { hostActor } from '../access-control/access/actor.js';
import { parseRoleYaml } from '../access-control/rbac/role.yaml.js';
import { RolesStore } from '../access-control/roles/roles.store.js';
import { openBackend, type Backend } from '../backend/index.js';
import { systemClock } from '../clock.js';
import { sessionCookieName } from '../http/request-identity.js';
import { UsersStore } from '../identity/users/users.store.js';
import { WebSessionService } from '../identity/web-sessions/web-sessions.service.js';
import { WebSessionStore } from '../identity/web-sessions/web-sessions.store.js';
import { openAuditStore, type AuditStore } from '../modules/audit/index.js';
import type { AuditEvent } from '../modules/audit/audit.types.js';
import { JoinTokensService } from '../modules/join-tokens/join-tokens.service.js';
import { JoinTokensStore } from '../modules/join-tokens/join-tokens.store.js';

/** The cluster's shared PostgreSQL: its state and, beside it, its audit log. */
export interface HaStorage {
  type: 'postgres';
  url: string;
  schema: string;
}

/** A signed-in user: the headers a browser sends (cookie and bearer). */
export interface HaUser {
  name: string;
  roles: string[];
  headers: { cookie: string; authorization: string };
}

export interface HaRoleOptions {
  /** Merged over the default `allow`: this OS user's login on every node, read sessions and events. */
  allow?: Record<string, unknown>;
  /** The role's options, e.g. `{record_session: {default: 'strict'}}`. */
  options?: Record<string, unknown>;
}

/** The login every HA test uses on the agent's node: whoever runs the tests. */
export const testLogin = userInfo().username;

/**
 * What a test prepares directly in the cluster's storage, before or after the proxies start
 * (they watch roles and users, and read web sessions from storage on every request): roles,
 * users with a web session, join tokens; and the audit log, read back.
 */
export class HaStorageKit {
  constructor(
    readonly storage: HaStorage,
    readonly clusterName: string,
  ) {}

  /** Opens the backend for `fn` alone, so no pool is left open across a database restart. */
  async withBackend<T>(fn: (backend: Backend) => Promise<T>): Promise<T> {
    const backend = await openBackend(this.storage);
    try {
      return await fn(backend);
    } finally {
      await backend.close();
    }
  }

  async withAudit<T>(fn: (audit: AuditStore) => Promise<T>): Promise<T> {
    const audit = await openAuditStore(this.storage, this.clusterName);
    try {
      return await fn(audit);
    } finally {
      await audit.close();
    }
  }

  async addRole(name: string, { allow = {}, options }: HaRoleOptions = {}): Promise<void> {
    const yaml = JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name },
      spec: {
        allow: {
          logins: [testLogin],
          node_labels: { '*': '*' },
          // No participants rule: a recording sealed after a crash lists no participants.
          rules: [{ resources: ['session', 'session_tracker', 'event'], verbs: ['list', 'read'] }],
          ...allow,
        },
        ...(options ? { options } : {}),
      },
    });
    await this.withBackend((backend) => new RolesStore(backend).create(parseRoleYaml(yaml).role));
  }

  /** A user of `roles` (created with addRole), signed in. */
  async addUser(name: string, roles: string[]): Promise<HaUser> {
    await this.withBackend((backend) =>
      new UsersStore(backend).create({
        kind: 'user',
        version: 'v2',
        metadata: { name },
        spec: { roles, traits: { logins: [] }, authType: 'local', createdAt: '' },
        status: {},
      }),
    );
    return this.signIn(name, roles);
  }

  /** A new web session for an existing user. */
  async signIn(name: string, roles: string[]): Promise<HaUser> {
    const session = await this.withBackend((backend) =>
      new WebSessionService(new WebSessionStore(backend)).create(name, roles),
    );
    return {
      name,
      roles,
      headers: {
        cookie: `${sessionCookieName}=${session.id}`,
        authorization: `Bearer ${session.bearerToken}`,
      },
    };
  }

  /** A Node join token for `postern agent --token`. */
  async joinToken(): Promise<string> {
    return this.withBackend((backend) =>
      this.withAudit(async (audit) => {
        const tokens = new JoinTokensService(new JoinTokensStore(backend), audit, systemClock);
        const request = createJoinTokenRequestSchema.parse({ roles: ['Node'] });
        return (await tokens.create(request, hostActor('ha-test'))).token;
      }),
    );
  }

  /** Every audit event so far, oldest first. */
  async auditEvents(): Promise<AuditEvent[]> {
    return this.withAudit(async (audit) => {
      const events: AuditEvent[] = [];
      let startKey: string | undefined;
      do {
        const page = await audit.search({
          from: new Date(0),
          to: new Date(Date.now() + 3600_000),
          limit: 5000,
          order: 'asc',
          ...(startKey ? { startKey } : {}),
        });
        events.push(...page.events);
        startKey = page.startKey || undefined;
      } while (startKey);
      return events;
    });
  }
}
