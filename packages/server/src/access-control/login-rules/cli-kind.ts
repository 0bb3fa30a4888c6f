import type { AdminContext } from '../../cli/admin-context.js';
import { parseDoc } from '../../cli/documents.js';
import type { CliKind } from '../../cli/kinds.js';
import { loginRuleSchema, type LoginRule } from './login-rule.js';

/**
 * The CLI's login rules: `get login_rules`, `create -f rule.yaml` (`--force` overwrites) and
 * `rm login_rule/NAME`, over the same service the server applies them with.
 */
export const loginRuleCliKind: CliKind<LoginRule> = {
  kind: 'login_rule',
  words: ['login_rules', 'login_rule'],
  noun: 'login rule',
  title: 'login rule',
  refExample: 'login_rule/NAME',
  defaultFormat: 'yaml',
  list: (ctx: AdminContext, actor) => ctx.access.loginRules.list(actor),
  nameOf: (rule) => rule.metadata.name,
  text: {
    header: ['NAME', 'PRIORITY', 'TRAITS', 'EXPIRES'],
    row: (rule) => [
      rule.metadata.name,
      String(rule.spec.priority),
      Object.keys(rule.spec.traits_map).join(','),
      rule.metadata.expires ?? 'never',
    ],
  },
  create: async (ctx, doc, force, actor) => {
    const rule = parseDoc(loginRuleSchema, doc);
    const { created } = await ctx.access.loginRules.save(rule, actor, { overwrite: force });
    return `login rule ${rule.metadata.name} has been ${created ? 'created' : 'overwritten'}`;
  },
  remove: (ctx, name, actor) => ctx.access.loginRules.remove(name, actor),
};
