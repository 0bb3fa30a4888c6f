import { randomUUID } from 'node:crypto';
import type { AccessRequestScope, ResourceId, ReviewVerdict } from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { accessDenied, ApiError, badParameter, notFound } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import type { AccessRequestNotice, RequestNotifier } from '../../modules/integrations/notice.js';
import type { Actor } from '../access/actor.js';
import { lockText, type LockView } from '../locks/lock-watcher.js';
import { parseDuration, type RoleSet } from '../rbac/index.js';
import { decide, effectiveState, type AccessRequestResource } from './access-request.js';
import { accessRequestJson, canReview, mayReviewRolesOf } from './access-request-json.js';
import { accessRequestNotFound, type AccessRequestsStore } from './access-requests.store.js';

/** A parsed create request (the contracts' schema applied). */
export interface NewAccessRequest {
  roles: string[];
  resources: { kind: string; clusterName: string; name: string }[];
  reason: string;
  suggestedReviewers: string[];
  maxDuration?: string | undefined;
  dryRun: boolean;
}

export interface AccessRequestsDeps {
  store: AccessRequestsStore;
  audit: AuditStore;
  now: Clock;
  /** Every role name that exists now. */
  roleNames: () => string[];
  /** These roles as a RoleSet for the user (their traits filled in). */
  roleSetOf: (user: string, roles: string[]) => RoleSet;
  /** The console's review screen of a request, for notifications. */
  reviewUrl: (id: string) => string;
  /** An `access_request` lock on a request refuses assuming it. */
  locks: LockView;
}

/**
 * Finds a resource a request names, through the wings' kinds: null when the kind cannot be
 * requested by resource (its wing registers no finder), undefined when there is no such resource.
 */
export type ResourceFinder = (
  kind: string,
  name: string,
) => { id: string; labels: Record<string, string> } | undefined | null;

/** How access requests name a kind, and the RBAC kind that decides who reaches it. */
const accessKindOf = {
  node: 'node',
  app: 'app',
  db: 'db',
  kube_cluster: 'kube',
  windows_desktop: 'desktop',
} as const;

/** A pending request nobody decides expires after this, at the latest. */
const longestPendingMs = 7 * 24 * 3600 * 1000;
/** Below this an approval would be over before anyone could use it. */
const shortestAccessMs = 2_000;

/**
 * Just-in-time access (docs/access-requests.md): creating requests for roles, the reviews that
 * decide them (thresholds of distinct reviewers; nobody reviews their own), who sees which, and
 * which one a session may assume. What an assumed request grants is the AccessResolver's, which
 * watches the same records.
 */
export class AccessRequestsService {
  /** Set once the integrations are built; notices are never awaited. */
  notifier: RequestNotifier | undefined;
  /** Set once the wings are built: finds the resources a request names. */
  findResource: ResourceFinder = () => null;

  constructor(private readonly deps: AccessRequestsDeps) {}

  async create(input: NewAccessRequest, actor: Actor) {
    if (!actor.roleSet) throw badParameter('access requests are made by signed-in users');
    const existing = new Set(this.deps.roleNames());
    const requestable = new Set(actor.roleSet.requestableRoles([...existing]));
    for (const role of input.roles) {
      if (!existing.has(role)) throw badParameter(`role ${role} does not exist`);
      if (actor.roleSet.roleNames.includes(role)) throw badParameter(`you already hold ${role}`);
      if (!requestable.has(role)) throw accessDenied(`you may not request the role ${role}`);
    }
    const { resources, rolesForResources } = this.resolveResources(input.resources, actor);
    const roles = [...new Set([...input.roles, ...rolesForResources])].sort();
    const options = actor.roleSet.options();
    const reason = input.reason.trim();
    if (options.requestAccess === 'reason' && !reason) {
      throw badParameter(options.requestPrompt || 'your roles require a reason for the request');
    }
    const now = this.deps.now();
    const accessMs = this.accessDuration(
      input.maxDuration,
      actor.roleSet.requestMaxDurationMs(roles),
    );
    const suggested = new Set([...actor.roleSet.suggestedReviewers(), ...input.suggestedReviewers]);
    suggested.delete(actor.name);
    const request: AccessRequestResource = {
      kind: 'access_request',
      version: 'v3',
      metadata: { name: randomUUID() },
      spec: {
        user: actor.name,
        roles,
        resources,
        reason,
        state: 'PENDING',
        created: iso(now),
        requestExpires: iso(now + Math.min(accessMs, longestPendingMs)),
        accessExpires: iso(now + accessMs),
        suggestedReviewers: [...suggested].sort(),
        thresholds: Object.fromEntries(
          roles.map((role) => [role, actor.roleSet!.requestThresholds(role)]),
        ),
        reviews: [],
        resolveReason: '',
      },
    };
    if (input.dryRun) return accessRequestJson(request, actor, now);
    const created = await this.deps.store.create(request);
    await emitAudit(this.deps.audit, 'T5000I', {
      user: actor.name,
      id: created.metadata.name,
      roles,
      resources: resources.map((r) => `${r.kind}/${r.name}`),
      reason,
      state: 'PENDING',
      expires: created.spec.accessExpires,
    });
    this.tell('created', created, created.spec.suggestedReviewers);
    return accessRequestJson(created, actor, now);
  }

  /** Requests the actor may see, newest first: their own, those they may review, or both. */
  async list(actor: Actor, scope: AccessRequestScope) {
    const now = this.deps.now();
    const all = await this.deps.store.list();
    const picked = all.filter((request) => {
      const mine = request.spec.user === actor.name;
      if (scope === 'mine') return mine;
      if (scope === 'review') return canReview(actor, request, now);
      return mine || mayReviewRolesOf(actor, request);
    });
    return picked
      .sort((a, b) => b.spec.created.localeCompare(a.spec.created))
      .map((request) => accessRequestJson(request, actor, now));
  }

  async get(id: string, actor: Actor) {
    return accessRequestJson(await this.visible(id, actor), actor, this.deps.now());
  }

  /**
   * Adds the actor's review and works out the state again, over the revision read (two
   * reviewers at once never lose a review). Returns the request as it is now.
   */
  async review(id: string, verdict: { state: ReviewVerdict; reason: string }, actor: Actor) {
    for (let attempt = 0; ; attempt++) {
      const request = await this.visible(id, actor);
      const now = this.deps.now();
      if (request.spec.user === actor.name)
        throw accessDenied('you cannot review your own request');
      if (!mayReviewRolesOf(actor, request)) {
        throw accessDenied(`you may not review requests for ${request.spec.roles.join(', ')}`);
      }
      const state = effectiveState(request, now);
      if (state !== 'PENDING') throw badParameter(`the request is ${state.toLowerCase()} already`);
      if (request.spec.reviews.some((r) => r.author === actor.name)) {
        throw badParameter('you have reviewed this request already');
      }
      const review = {
        author: actor.name,
        state: verdict.state,
        reason: verdict.reason.trim(),
        created: iso(now),
      };
      const reviews = [...request.spec.reviews, review];
      const decided = decide(request.spec.thresholds, reviews);
      const next: AccessRequestResource = {
        ...request,
        spec: {
          ...request.spec,
          reviews,
          state: decided,
          resolveReason: decided === 'PENDING' ? '' : review.reason,
        },
      };
      let written: AccessRequestResource;
      try {
        written = await this.deps.store.update(next, request.metadata.revision);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'compare_failed' && attempt < 4) continue;
        throw error;
      }
      await emitAudit(this.deps.audit, 'T5002I', {
        user: actor.name,
        reviewer: actor.name,
        id,
        proposed_state: verdict.state,
        reason: review.reason,
      });
      if (decided !== 'PENDING') {
        await emitAudit(this.deps.audit, 'T5001I', {
          user: actor.name,
          id,
          state: decided,
          reason: review.reason,
        });
        const event = decided === 'APPROVED' ? 'approved' : 'denied';
        this.tell(event, written, [written.spec.user, ...written.spec.suggestedReviewers]);
      }
      return accessRequestJson(written, actor, now);
    }
  }

  /** The requester deletes their own request (assumed roles go with it); so may an admin. */
  async remove(id: string, actor: Actor) {
    const request = await this.visible(id, actor);
    const own = request.spec.user === actor.name;
    const admin = actor.roleSet === null || actor.roleSet.checkRule('access_request', 'delete');
    if (!own && !admin) throw accessDenied('you may delete only your own requests');
    await this.deps.store.delete(id);
    await emitAudit(this.deps.audit, 'T5003I', { user: actor.name, id, owner: request.spec.user });
  }

  /**
   * The request a session of `user` may assume now: theirs and approved, its access not over.
   * Someone else's is "not found": its existence is not theirs to learn.
   */
  async assumable(id: string, user: string): Promise<AccessRequestResource> {
    const request = await this.deps.store.get(id);
    if (!request || request.spec.user !== user) throw accessRequestNotFound(id);
    const state = effectiveState(request, this.deps.now());
    if (state !== 'APPROVED') {
      throw badParameter(`access request ${id} is ${state.toLowerCase()}: it cannot be assumed`);
    }
    const lock = this.deps.locks.lockFor({ accessRequests: [id] });
    if (lock) throw accessDenied(`access request ${id} is locked: ${lockText(lock)}`);
    return request;
  }

  /**
   * The resources a request names, each found and given the requester's search_as_roles that
   * reach it: those roles, granted for those resources only once approved.
   */
  private resolveResources(wanted: NewAccessRequest['resources'], actor: Actor) {
    const resources: ResourceId[] = [];
    const roles = new Set<string>();
    if (wanted.length === 0) return { resources, rolesForResources: [] };
    const searchAs = actor.roleSet!.searchAsRoles(this.deps.roleNames());
    if (searchAs.length === 0) {
      throw accessDenied('your roles let you request roles only, not specific resources');
    }
    const searchSet = this.searchRoleSet(actor, searchAs);
    for (const item of wanted) {
      if (!(item.kind in accessKindOf))
        throw badParameter(`resources of kind ${item.kind} cannot be requested`);
      const kind = item.kind as keyof typeof accessKindOf;
      const found = this.findResource(kind, item.name);
      if (found === null) {
        throw badParameter(`resources of kind ${kind} cannot be requested yet: request a role`);
      }
      const granting = found ? searchSet.rolesGranting(accessKindOf[kind], found) : [];
      // A resource the search roles cannot reach is "not found": its existence is not theirs.
      if (!found || granting.length === 0) throw notFound(`${item.kind} ${item.name} not found`);
      for (const role of granting) roles.add(role);
      resources.push({ kind, clusterName: item.clusterName, name: found.id });
    }
    return { resources, rolesForResources: [...roles] };
  }

  /**
   * What a listing with `searchAsRoles=yes` sees for the actor: their search_as_roles as one
   * RoleSet, the search audited (reference T5004I). Refused to someone without any.
   */
  async searchAs(actor: Actor, resourceType: string): Promise<RoleSet> {
    if (!actor.roleSet) throw badParameter('searching as requestable roles needs a signed-in user');
    const searchAs = actor.roleSet.searchAsRoles(this.deps.roleNames());
    if (searchAs.length === 0) throw accessDenied('your roles have no search_as_roles');
    await emitAudit(this.deps.audit, 'T5004I', {
      user: actor.name,
      resource_type: resourceType,
      search_as_roles: searchAs,
    });
    return this.searchRoleSet(actor, searchAs);
  }

  /** The user's search_as_roles as a RoleSet: what a resource request may reach. */
  searchRoleSet(actor: Actor, searchAs: string[]): RoleSet {
    return this.deps.roleSetOf(actor.name, searchAs);
  }

  /** A request the actor may see: their own, or one for roles they review. */
  private async visible(id: string, actor: Actor): Promise<AccessRequestResource> {
    const request = await this.deps.store.get(id);
    if (!request) throw accessRequestNotFound(id);
    if (request.spec.user !== actor.name && !mayReviewRolesOf(actor, request)) {
      throw accessRequestNotFound(id);
    }
    return request;
  }

  private accessDuration(asked: string | undefined, limitMs: number): number {
    if (!asked) return limitMs;
    const ms = parseDuration(asked);
    if (ms === undefined || ms < shortestAccessMs) {
      throw badParameter("maxDuration: expected a duration of at least 2s, like '30m' or '4h'");
    }
    if (ms > limitMs) {
      throw badParameter(
        `maxDuration: at most ${Math.floor(limitMs / 60_000)} minutes for these roles`,
      );
    }
    return ms;
  }

  private tell(event: AccessRequestNotice['event'], request: AccessRequestResource, to: string[]) {
    if (!this.notifier) return;
    const json = accessRequestJson(request, { name: '', roleSet: null }, this.deps.now());
    this.notifier.notify({
      event,
      request: json,
      recipients: [...new Set(to)],
      reviewUrl: this.deps.reviewUrl(request.metadata.name),
    });
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
