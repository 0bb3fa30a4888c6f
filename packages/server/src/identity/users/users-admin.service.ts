import type { MfaDevice, UserJson, UserUpsertRequest } from '@postern/contracts';
import { accessDenied, badParameter, notFound } from '../../errors.js';
import {
  assertGrantable,
  assertMay,
  may,
  visible,
  type Actor,
} from '../../access-control/access/actor.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import { canGrantRoles } from '../../access-control/rbac/index.js';
import { deviceView } from '../mfa/devices.js';
import { toUserJson, traitsToInternal } from './traits.js';
import type { UsersService } from './users.service.js';
import type { UserResource } from './users.store.js';

/**
 * Manage Users through the API: who may list, read, create, update and delete which user. The
 * route checked that the verb MIGHT be allowed on users; here each user is checked itself (rules
 * with `where` clauses), and roles are granted only by someone who could create them.
 */
export class UsersAdminService {
  constructor(
    private readonly users: UsersService,
    private readonly audit: AuditStore,
  ) {}

  /** Every user the actor may read, by name. Pagination, when it comes, goes after the filter. */
  async list(actor: Actor): Promise<UserJson[]> {
    return visible(actor, 'user', await this.users.list()).map(toUserJson);
  }

  async get(name: string, actor: Actor): Promise<UserJson> {
    const user = await this.users.get(name);
    // A user the actor may not read is reported like a missing one.
    if (!may(actor, 'user', 'read', user)) throw notFound(`user ${name} not found`);
    return toUserJson(user);
  }

  /** The user's MFA devices as Account Settings lists them, for whoever may read the user. */
  async devices(name: string, actor: Actor): Promise<MfaDevice[]> {
    const user = await this.users.get(name);
    if (!may(actor, 'user', 'read', user)) throw notFound(`user ${name} not found`);
    const { devices } = await this.users.store.credentials(name);
    return devices.map(deviceView);
  }

  async create(body: UserUpsertRequest, actor: Actor): Promise<UserJson> {
    const draft = { kind: 'user', metadata: { name: body.name }, spec: { roles: body.roles } };
    assertMay(actor, 'user', 'create', draft, body.name);
    assertGrantable(actor, body.roles);
    const traits = traitsToInternal(body.traits ?? {});
    return toUserJson(await this.users.create({ ...body, traits }, actor.name));
  }

  async update(body: UserUpsertRequest, actor: Actor): Promise<UserJson> {
    const current = await this.users.get(body.name);
    assertMay(actor, 'user', 'update', current, body.name);
    assertLocal(current, 'edited');
    assertNotBot(current, 'changed');
    // Keeping or removing a role grants nothing; only the roles added are checked.
    const added = body.roles.filter((role) => !current.spec.roles.includes(role));
    assertGrantable(actor, added);
    const change = {
      name: body.name,
      roles: body.roles,
      traits: traitsToInternal(body.traits ?? {}),
    };
    await this.assertNotWideningSelf(actor, current, added, change.traits);
    return toUserJson(await this.users.update(change, actor.name));
  }

  /**
   * Whoever uses an invite or reset link becomes that user, so issuing one hands out the user's
   * roles: the actor must be able to grant every one of them (a user manager cannot take over an
   * editor's account by resetting it). An invite creates an account and a reset edits one, so
   * the verb on users depends on the kind of link.
   */
  async assertMayIssueLink(name: string, type: 'invite' | 'password', actor: Actor): Promise<void> {
    // The console's ACL words (create, edit) over the rule verbs (create, update).
    const [verb, ruleVerb] = type === 'invite' ? ['create', 'create'] : ['edit', 'update'];
    if (actor.roleSet && !actor.roleSet.guessRule('user', ruleVerb)) {
      throw accessDenied(`access denied: ${verb} on users is not allowed`);
    }
    const found = await this.users.store.get(name);
    if (!found) return;
    assertLocal(found.user, 'given a password link');
    assertGrantable(actor, found.user.spec.roles);
  }

  /**
   * Nobody gives themselves a role through their own user record, even one they may grant
   * others: another administrator has to. Trait values (a login, a database user…) are widening
   * too, unless the actor could make a new user with all of their own roles and those traits
   * anyway (they may create users and grant every role they hold): refusing would then gain
   * nothing, and would leave a lone administrator unable to add a login for a new server.
   */
  private async assertNotWideningSelf(
    actor: Actor,
    current: UserResource,
    addedRoles: readonly string[],
    traits: Record<string, string[]>,
  ): Promise<void> {
    if (!actor.roleSet || current.metadata.name !== actor.name) return;
    const had = current.spec.traits as Record<string, string[] | undefined>;
    const addedTraits = couldCreateSelf(actor, current)
      ? []
      : Object.entries(traits).flatMap(([trait, values]) =>
          values.filter((value) => !(had[trait] ?? []).includes(value)).map((v) => `${trait}=${v}`),
        );
    const widening = [
      ...(addedRoles.length > 0 ? [`roles ${addedRoles.join(', ')}`] : []),
      ...(addedTraits.length > 0 ? [`traits ${addedTraits.join(', ')}`] : []),
    ];
    if (widening.length === 0) return;
    const error = accessDenied(
      `you cannot give yourself access you do not hold: ${widening.join('; ')}; ask another administrator`,
    );
    await emitAudit(this.audit, 'TPOS019W', {
      user: actor.name,
      name: current.metadata.name,
      success: false,
      error: error.message,
    });
    throw error;
  }

  async remove(name: string, actor: Actor): Promise<void> {
    if (actor.roleSet && name === actor.name) {
      throw badParameter('you cannot delete your own user: ask another administrator');
    }
    const current = await this.users.get(name);
    assertMay(actor, 'user', 'delete', current, name);
    assertNotBot(current, 'deleted');
    await this.users.remove(name, actor.name);
  }
}

/**
 * An SSO user's roles and traits are written by their connector at every sign-in, and they have
 * no password here: an edit would be undone at the next sign-in, and a password link would turn
 * the account into a local one that no longer follows the identity provider.
 */
function assertLocal(user: UserResource, what: string): void {
  if (user.spec.authType === 'sso') {
    throw badParameter(
      `${user.metadata.name} signs in through single sign-on and cannot be ${what} here: ` +
        'change their groups or claims at the identity provider',
    );
  }
}

/**
 * A bot's user is changed and deleted as the bot: deleting only the user would leave its join
 * tokens and running copies behind, and a change made here would skip the bot's own audit.
 */
function assertNotBot(user: UserResource, what: string): void {
  const { bot } = user.spec;
  if (bot) {
    throw badParameter(
      `${user.metadata.name} is bot ${bot}'s identity and is ${what} as the bot: in Manage Bots, or with postern bots update|rm ${bot}`,
    );
  }
}

/** Whether the actor could create a user holding every role `user` holds (an account of theirs). */
function couldCreateSelf(actor: Actor, user: UserResource): boolean {
  const draft = { kind: 'user', metadata: { name: user.metadata.name }, spec: user.spec };
  if (!actor.roleSet || !may(actor, 'user', 'create', draft)) return false;
  return canGrantRoles(actor.roleSet, user.spec.roles).refused.length === 0;
}
