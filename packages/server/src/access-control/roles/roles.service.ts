import { roleItemId, type AuditCode, type RoleItem } from '@postern/contracts';
import { accessDenied, ApiError, badParameter } from '../../errors.js';
import { assertMay, may, visible, type Actor } from '../access/actor.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import {
  isPresetRoleName,
  parseRoleYaml,
  presetRoles,
  roleToYaml,
  RoleValidationError,
  type Role,
} from '../rbac/index.js';
import type { UsersStore } from '../../identity/users/users.store.js';
import { roleNotFound, type RolesStore } from './roles.store.js';
import { roleWidenings } from './widening.js';

/** How many holders a refused delete names before it says "and N more". */
const namedHolders = 5;

/**
 * Roles as YAML resources (spec §7 `/roles/{name?}`): the rules of creating, editing and deleting
 * them, who may, and their audit events. Validation is the engine's (parseRoleYaml), so errors
 * carry line numbers. Edits are checked against the revision the editor loaded, so of two people
 * saving the same role the second is told, and nothing the first saved is lost.
 */
export class RolesService {
  constructor(
    readonly store: RolesStore,
    private readonly users: UsersStore,
    private readonly audit: AuditStore,
  ) {}

  /**
   * Creates each preset role that is missing, and never touches one that exists: an admin's edit
   * of a preset survives restarts. Several proxies may race; the loser's create just fails.
   * Presets are part of the installation, not a change someone made, so they emit no event.
   */
  async seedPresets(): Promise<string[]> {
    const created: string[] = [];
    for (const role of presetRoles()) {
      try {
        await this.store.create(role);
        created.push(role.metadata.name);
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    return created;
  }

  /** Every role the actor may read, by name. Pagination, when it comes, goes after the filter. */
  async list(actor: Actor): Promise<Role[]> {
    return visible(actor, 'role', await this.store.list());
  }

  async get(name: string, actor: Actor): Promise<Role> {
    const role = await this.store.get(name);
    // A role the actor may not read is reported like a missing one.
    if (!role || !may(actor, 'role', 'read', role)) throw roleNotFound(name);
    return role;
  }

  /** `POST /roles`: a new role; an existing name is a 409 (the editor's "create" mode). */
  async create(content: string, actor: Actor): Promise<Role> {
    const role = withoutRevision(parseRoleYaml(content).role);
    assertMay(actor, 'role', 'create', role, role.metadata.name);
    await this.assertNotWideningOwn(actor, undefined, role, 'TPOS017W');
    const saved = await this.store.create(role);
    await emitAudit(this.audit, 'T9000I', { user: actor.name, name: role.metadata.name });
    return saved;
  }

  /**
   * `PUT /roles/{name}`: saves over the revision in `metadata.revision`, which the role carries as
   * it was read. A missing revision is refused rather than read as "overwrite": a blind write is
   * what loses someone else's change. Overwriting on purpose is `postern create -f --force`.
   */
  async update(name: string, content: string, actor: Actor): Promise<Role> {
    const parsed = parseRoleYaml(content).role;
    if (parsed.metadata.name !== name) {
      throw issueAt(
        content,
        'metadata.name',
        `is '${parsed.metadata.name}' but the role being saved is '${name}': a role cannot be renamed`,
      );
    }
    const revision = parsed.metadata.revision;
    if (!revision) {
      throw issueAt(
        content,
        'metadata.revision',
        'is missing: save the role as it was loaded (its YAML carries the revision), or reload it and reapply your change',
      );
    }
    const current = await this.store.get(name);
    if (!current) throw roleNotFound(name);
    assertMay(actor, 'role', 'update', current, name);
    await this.assertNotWideningOwn(actor, current, parsed, 'TPOS018W');
    const saved = await this.store.update(withoutRevision(parsed), revision).catch((error) => {
      // A save over a stale revision is refused like a widening: audited, then told.
      return this.refused(error, 'TPOS018W', actor, name);
    });
    await emitAudit(this.audit, 'T9002I', { user: actor.name, name });
    return saved;
  }

  /** `postern create -f --force`: creates the role, or overwrites it whatever its revision. */
  async put(content: string, actor: Actor): Promise<{ role: Role; created: boolean }> {
    const role = withoutRevision(parseRoleYaml(content).role);
    const name = role.metadata.name;
    if (!(await this.store.get(name))) {
      return { role: await this.create(content, actor), created: true };
    }
    assertMay(actor, 'role', 'update', role, name);
    await this.assertNotWideningOwn(actor, await this.store.get(name), role, 'TPOS018W');
    const saved = await this.store.update(role, undefined);
    await emitAudit(this.audit, 'T9002I', { user: actor.name, name });
    return { role: saved, created: false };
  }

  /**
   * Deletes a role that nobody holds. A role still assigned is refused, naming some holders, so
   * that deleting never silently takes access away. Presets cannot be deleted: they would come
   * back at the next start.
   */
  async remove(name: string, actor: Actor): Promise<void> {
    const current = await this.store.get(name);
    if (!current) throw roleNotFound(name);
    assertMay(actor, 'role', 'delete', current, name);
    if (isPresetRoleName(name)) {
      throw badParameter(`${name} is a preset role and cannot be deleted; edit it instead`);
    }
    const holders = (await this.users.list())
      .filter((user) => user.spec.roles.includes(name))
      .map((user) => user.metadata.name);
    if (holders.length > 0) {
      const shown = holders.slice(0, namedHolders).join(', ');
      const more =
        holders.length > namedHolders ? ` and ${holders.length - namedHolders} more` : '';
      throw badParameter(
        `role ${name} is still assigned to ${shown}${more}: remove it from them first`,
      );
    }
    await this.store.delete(name);
    await emitAudit(this.audit, 'T9001I', { user: actor.name, name });
  }

  /**
   * An editor may not widen a role they hold (assigned in their user record, or in their session
   * for a user without one): the new version must allow nothing the current one does not, and
   * deny everything it denies (`roleWidenings`). Creating a role counts when its name is one
   * they hold: a role that does not exist grants nothing until it does. The host's administrator
   * (the CLI) holds every permission already.
   */
  private async assertNotWideningOwn(
    actor: Actor,
    current: Role | null | undefined,
    proposed: Role,
    code: 'TPOS017W' | 'TPOS018W',
  ): Promise<void> {
    if (!actor.roleSet) return;
    const name = proposed.metadata.name;
    const record = await this.users.get(actor.name);
    const held = new Set([...(record?.user.spec.roles ?? []), ...actor.roleSet.roleNames]);
    if (!held.has(name)) return;
    const widenings = roleWidenings(current ?? undefined, proposed);
    if (widenings.length === 0) return;
    const error = accessDenied(
      `you cannot widen a role you hold: ${name} would grant you more (${widenings.join('; ')})`,
    );
    await this.refused(error, code, actor, name);
  }

  /** Audits a refused create or update of a role, then throws the refusal. */
  private async refused(
    error: unknown,
    code: AuditCode,
    actor: Actor,
    name: string,
  ): Promise<never> {
    if (error instanceof ApiError) {
      await emitAudit(this.audit, code, {
        user: actor.name,
        name,
        success: false,
        error: error.message,
      });
    }
    throw error;
  }
}

/** The Roles screen's item: the role as YAML, with the revision the editor must send back. */
export function roleItem(role: Role): RoleItem {
  const name = role.metadata.name;
  return {
    id: roleItemId(name),
    kind: 'role',
    name,
    description: role.metadata.description ?? '',
    content: roleToYaml(role),
  };
}

function withoutRevision(role: Role): Role {
  const { revision: _revision, ...metadata } = role.metadata;
  return { ...role, metadata };
}

const isAlreadyExists = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === 'already_exists';

/**
 * A problem with a metadata field, at its line when the text shows it, in the engine's
 * `line N: path: message` form, so the editor marks it like any validation error. Connectors
 * use it too.
 */
export function issueAt(content: string, path: string, message: string): RoleValidationError {
  const field = path.split('.').pop() ?? '';
  const lines = content.split('\n');
  const metadataAt = lines.findIndex((line) => /^metadata\s*:/.test(line));
  const fieldAt = lines.findIndex(
    (line, n) => n > metadataAt && metadataAt >= 0 && new RegExp(`^\\s+${field}\\s*:`).test(line),
  );
  const line = (fieldAt >= 0 ? fieldAt : Math.max(metadataAt, 0)) + 1;
  return new RoleValidationError([{ path, line, message }]);
}
