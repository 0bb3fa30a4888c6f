import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import type { Clock } from '../../clock.js';
import { assertMay, visible, type Actor } from '../access/actor.js';
import type { TraitMap } from '../rbac/templates.js';
import { applyLoginRules, type LoginRule } from './login-rule.js';
import { loginRuleNotFound, type LoginRulesStore } from './login-rules.store.js';

/** The role rules' kind for login rules: the preset editor manages them. */
export const loginRuleKind = 'login_rule';

/**
 * Login rules as resources (`postern create -f`, `get`, `rm`), checked against the actor's
 * rules and audited (TLR00I, TLR01I), and applied to each single sign-on's traits.
 */
export class LoginRulesService {
  constructor(
    private readonly store: LoginRulesStore,
    private readonly audit: AuditStore,
    private readonly now: Clock,
  ) {}

  async list(actor: Actor): Promise<LoginRule[]> {
    return visible(actor, loginRuleKind, await this.store.list());
  }

  /** Stores a rule checked by `loginRuleSchema`; an existing one only with `overwrite`. */
  async save(
    rule: LoginRule,
    actor: Actor,
    { overwrite = false }: { overwrite?: boolean } = {},
  ): Promise<{ rule: LoginRule; created: boolean }> {
    const name = rule.metadata.name;
    const { revision: _ignored, ...metadata } = rule.metadata;
    const clean = { ...rule, metadata };
    const exists = overwrite && (await this.store.get(name)) !== null;
    assertMay(actor, loginRuleKind, exists ? 'update' : 'create', clean, name);
    const saved = exists ? await this.store.overwrite(clean) : await this.store.create(clean);
    await emitAudit(this.audit, 'TLR00I', { user: actor.name, name });
    return { rule: saved, created: !exists };
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const rule = await this.store.get(name);
    if (!rule) throw loginRuleNotFound(name);
    assertMay(actor, loginRuleKind, 'delete', rule, name);
    await this.store.delete(name);
    await emitAudit(this.audit, 'TLR01I', { user: actor.name, name });
  }

  /** A sign-in's traits after every rule in force (LoginRuleError when one cannot apply). */
  async apply(traits: TraitMap): Promise<TraitMap> {
    const rules = await this.store.list();
    return rules.length === 0 ? traits : applyLoginRules(rules, traits, new Date(this.now()));
  }
}
