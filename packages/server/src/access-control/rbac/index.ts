export { permits, type Principals, type RuleMode } from './access-checker.js';
export { aclAreaKinds, userAcl } from './acl.js';
export { parseDuration } from './duration.js';
export {
  accessKinds,
  type AccessKind,
  type ModerationPolicy,
  type PrincipalField,
} from './expand.js';
export { canGrantRoles, type GrantCheck } from './grant.js';
export { defaultMaxSessionTtlMs, type EffectiveOptions } from './options.js';
export { editorResourceKinds, isPresetRoleName, presetRole, presetRoles } from './presets.js';
export {
  resourceKey,
  RoleSet,
  type Labelled,
  type RoleRestrictions,
  type RoleSetUser,
} from './role-set.js';
export { roleSchema, type Role, type RoleConditions, type RoleOptions } from './role.schema.js';
export { parseRoleYaml, RoleValidationError, roleToYaml } from './role.yaml.js';
export { internalTraitNames, type TraitMap, type UserTraits } from './templates.js';
export type { WhereContext } from './where.js';
