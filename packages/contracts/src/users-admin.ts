import { z } from 'zod';
import { userNameSchema } from './identity/sessions.js';

/**
 * Manage Users (spec §3 user, reference §1.8). Traits carry the UI's names; the server stores
 * them under the internal names that role templates read (`{{internal.db_users}}`…).
 */
export const userTraitNames = [
  'logins',
  'databaseUsers',
  'databaseNames',
  'kubeUsers',
  'kubeGroups',
  'windowsLogins',
  'awsRoleArns',
] as const;
export type UserTraitName = (typeof userTraitNames)[number];

const traitValues = z
  .array(
    z
      .string()
      .min(1, 'must not be empty')
      .max(256, 'at most 256 characters')
      // eslint-disable-next-line no-control-regex
      .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not hold control characters'),
  )
  .max(100, 'at most 100 values');

export const userTraitsSchema = z.object(
  Object.fromEntries(userTraitNames.map((name) => [name, traitValues])) as Record<
    UserTraitName,
    typeof traitValues
  >,
);
export type UserTraits = z.infer<typeof userTraitsSchema>;

/** One user as `GET /users` and `GET /users/{username}` return it. Roles are sorted. */
export const userJsonSchema = z.object({
  name: z.string(),
  roles: z.array(z.string()),
  /** 'local' for users of this cluster, 'sso' for users of an identity provider. */
  authType: z.enum(['local', 'sso']),
  isLocal: z.boolean(),
  traits: userTraitsSchema,
  /** Postern's own: the user is a bot's identity (`bot-<name>`), managed in Manage Bots. */
  bot: z.string().optional(),
});
export type UserJson = z.infer<typeof userJsonSchema>;

/**
 * `POST /users` (create, no password: the console then asks for an invite link) and `PUT /users`
 * (update). On update, a trait left out keeps its value; on create it starts empty.
 */
export const userUpsertRequestSchema = z.object({
  name: userNameSchema,
  roles: z
    .array(z.string().min(1, 'must not be empty').max(128))
    .min(1, 'give the user at least one role')
    .max(64, 'at most 64 roles'),
  traits: userTraitsSchema.partial().optional(),
});
export type UserUpsertRequest = z.infer<typeof userUpsertRequestSchema>;
