import { randomBytes, randomUUID } from 'node:crypto';
import {
  internalResourceIdLabel,
  labelNamePattern,
  type createJoinTokenRequestSchema,
  type JoinTokenJson,
  type JoinTokenListItem,
  type JoinTokenRole,
} from '@postern/contracts';
import type { z } from 'zod';
import type { Clock } from '../../clock.js';
import { formatDuration } from '../../config/duration.js';
import { ApiError, badParameter, notFound } from '../../errors.js';
import { assertMay, visible, type Actor } from '../../access-control/access/actor.js';
import { parseDuration } from '../../access-control/rbac/index.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit, remoteAddr } from '../audit/emit.js';
import {
  hashJoinToken,
  type JoinTokenResource,
  type JoinTokensStore,
} from './join-tokens.store.js';

/**
 * A join token lives 30 minutes unless the admin asks otherwise (`postern tokens add --ttl`):
 * long enough to paste a command on a host, short enough that a token left in a shell history or
 * a ticket is soon worthless. The console's call takes no TTL, as in the reference.
 */
export const joinTokenDefaultTtlMs = 30 * 60_000;
export const joinTokenMaxTtlMs = 30 * 24 * 3600_000;

export type NewJoinToken = z.output<typeof createJoinTokenRequestSchema>;

export interface IssuedJoinToken {
  /** The secret: shown once, never stored. */
  token: string;
  resource: JoinTokenResource;
}

/** One answer for every token that does not work, so a guess learns nothing about tokens. */
export const invalidJoinToken = () =>
  new ApiError('access_denied', 'the join token is not valid (or no longer valid) for this');

/** How listings and `postern tokens rm` name a token without showing it: its hash's start. */
export const joinTokenId = (token: JoinTokenResource) => token.metadata.name.slice(0, 16);

/** Join tokens: who may create them, what they grant, and their audit events. */
export class JoinTokensService {
  constructor(
    private readonly store: JoinTokensStore,
    private readonly audit: AuditStore,
    private readonly now: Clock,
  ) {}

  async create(
    request: NewJoinToken,
    actor: Actor,
    options: { ttlMs?: number; addr?: string } = {},
  ): Promise<IssuedJoinToken> {
    // Cloud join methods need an identity document check that does not exist yet: refuse them
    // rather than hand out a token that can never work.
    if (request.join_method !== 'token') {
      throw badParameter(`join_method: only 'token' is supported, not '${request.join_method}'`);
    }
    for (const name of Object.keys(request.suggested_agent_matcher_labels)) {
      // They become node labels: the same names as any label, or RBAC could never match them.
      if (!labelNamePattern.test(name)) {
        throw badParameter(`suggested_agent_matcher_labels: invalid label name '${name}'`);
      }
    }
    const ttlMs = options.ttlMs ?? requestedTtlMs(request.ttl) ?? joinTokenDefaultTtlMs;
    if (!(ttlMs > 0 && ttlMs <= joinTokenMaxTtlMs)) {
      throw badParameter(
        `ttl: expected more than 0 and at most ${formatDuration(joinTokenMaxTtlMs)}`,
      );
    }
    // 128 random bits, hex, like the reference's tokens.
    const token = randomBytes(16).toString('hex');
    const now = this.now();
    const resource: JoinTokenResource = {
      kind: 'token',
      version: 'v2',
      metadata: { name: hashJoinToken(token), expires: new Date(now + ttlMs).toISOString() },
      spec: {
        roles: [...new Set(request.roles)],
        joinMethod: request.join_method,
        allow: request.allow,
        suggestedLabels: Object.fromEntries(
          Object.entries(request.suggested_agent_matcher_labels).map(([name, values]) => [
            name,
            typeof values === 'string' ? [values] : values,
          ]),
        ),
        internalResourceId: randomUUID(),
        hint: token.slice(-4),
        createdAt: new Date(now).toISOString(),
        createdBy: actor.name,
      },
    };
    assertMay(actor, 'token', 'create', resource, joinTokenId(resource));
    await this.store.create(resource);
    await emitAudit(this.audit, 'TJT00I', {
      user: actor.name,
      name: joinTokenId(resource),
      roles: resource.spec.roles,
      join_method: resource.spec.joinMethod,
      expires: resource.metadata.expires,
      ...remoteAddr(options.addr),
    });
    return { token, resource };
  }

  /**
   * The live token, if it grants `role` (or any of several); otherwise the same error whatever
   * the reason.
   */
  async validate(
    token: string,
    role: JoinTokenRole | readonly JoinTokenRole[],
  ): Promise<JoinTokenResource> {
    const wanted: readonly JoinTokenRole[] = typeof role === 'string' ? [role] : role;
    if (typeof token !== 'string' || token.length === 0 || token.length > 256) {
      throw invalidJoinToken();
    }
    const found = await this.store.get(hashJoinToken(token));
    if (!found || !this.live(found) || !wanted.some((each) => found.spec.roles.includes(each))) {
      throw invalidJoinToken();
    }
    return found;
  }

  /** Live tokens the actor may read, soonest to expire first. */
  async list(actor: Actor): Promise<JoinTokenResource[]> {
    const live = (await this.store.list()).filter((token) => this.live(token));
    return visible(actor, 'token', live).sort((a, b) =>
      a.metadata.expires.localeCompare(b.metadata.expires),
    );
  }

  /** Deletes a token named by itself or by its id (a unique start of its hash, 8 characters at least). */
  async remove(tokenOrId: string, actor: Actor): Promise<JoinTokenResource> {
    const token = await this.find(tokenOrId);
    assertMay(actor, 'token', 'delete', token, joinTokenId(token));
    if (!(await this.store.delete(token.metadata.name))) throw tokenNotFound();
    await emitAudit(this.audit, 'TJT02I', {
      user: actor.name,
      name: joinTokenId(token),
      roles: token.spec.roles,
    });
    return token;
  }

  private async find(tokenOrId: string): Promise<JoinTokenResource> {
    const exact = await this.store.get(hashJoinToken(tokenOrId));
    if (exact && this.live(exact)) return exact;
    const id = tokenOrId.toLowerCase();
    if (!/^[0-9a-f]{8,64}$/.test(id)) throw tokenNotFound();
    const matches = (await this.store.list()).filter(
      (token) => this.live(token) && token.metadata.name.startsWith(id),
    );
    if (matches.length > 1) throw badParameter(`several tokens start with ${id}: give more of it`);
    if (!matches[0]) throw tokenNotFound();
    return matches[0];
  }

  private live(token: JoinTokenResource): boolean {
    return Date.parse(token.metadata.expires) > this.now();
  }
}

const tokenNotFound = () => notFound('no such join token (it may have expired)');

function requestedTtlMs(ttl: string | undefined): number | undefined {
  if (!ttl) return undefined;
  const ms = parseDuration(ttl);
  if (ms === undefined) {
    throw badParameter(`ttl: expected a duration like '30m', '1h' or '24h', got '${ttl}'`);
  }
  return ms;
}

/** The suggested labels, one pair per value, and the resource-id label (reference §1.11). */
export function suggestedLabelPairs(token: JoinTokenResource): { name: string; value: string }[] {
  return [
    ...Object.entries(token.spec.suggestedLabels).flatMap(([name, values]) =>
      values.map((value) => ({ name, value })),
    ),
    { name: internalResourceIdLabel, value: token.spec.internalResourceId },
  ];
}

/**
 * The static labels a node joining with the token gets. A node label holds one value, so of a
 * suggestion's values the first literal one is taken; `*` (any value) only makes sense to match.
 */
export function nodeLabelsFrom(token: JoinTokenResource): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [name, values] of Object.entries(token.spec.suggestedLabels)) {
    const value = values.find((each) => each !== '*');
    if (value !== undefined) labels[name] = value;
  }
  labels[internalResourceIdLabel] = token.spec.internalResourceId;
  return labels;
}

/** What `POST /v1/webapi/token` answers: the one time the token itself is shown. */
export function joinTokenJson({ token, resource }: IssuedJoinToken): JoinTokenJson {
  return {
    id: token,
    expiry: resource.metadata.expires,
    roles: resource.spec.roles,
    suggestedLabels: suggestedLabelPairs(resource),
    internalResourceId: resource.spec.internalResourceId,
  };
}

/** A live token as Join Tokens lists it: named by its id, masked, never the secret. */
export function joinTokenListItem(resource: JoinTokenResource): JoinTokenListItem {
  return {
    id: joinTokenId(resource),
    safeName: `••••${resource.spec.hint}`,
    roles: resource.spec.roles,
    method: resource.spec.joinMethod,
    expiry: resource.metadata.expires,
    suggestedLabels: suggestedLabelPairs(resource),
    internalResourceId: resource.spec.internalResourceId,
    createdAt: resource.spec.createdAt,
    createdBy: resource.spec.createdBy,
    isStatic: false,
  };
}
