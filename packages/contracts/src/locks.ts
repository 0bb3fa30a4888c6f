import { z } from 'zod';

/**
 * Session and identity locks (reference §1.10). A lock names exactly one target; while it is in
 * force the target cannot sign in, renew or call the API (and live sessions it covers end).
 *
 * Only kinds Postern enforces: a kind joins this list (and so the API, the CLI flags and the
 * console's form) with the check that enforces it. `windows_desktop` is the reference's name; it
 * locks any desktop (VNC or RDP) by its name. `mfa_device` names a device's id (UUID): the device
 * is refused for every MFA check, and what was signed in with it (web sessions, `postern login`
 * certificates) is locked. `access_request` names a request's id (UUID): every credential that
 * assumed it (a web session, a certificate) is locked as a whole, as the reference does, and the
 * request cannot be assumed again while the lock stands. `bot_instance` names one running copy of
 * a bot by its instance id (UUID, as Manage Bots lists it): that copy's certificates stop working
 * (its connections end) and it cannot renew, while the bot's other instances go on.
 */
export const lockTargetKinds = [
  'user',
  'role',
  'login',
  'node',
  'windows_desktop',
  'mfa_device',
  'access_request',
  'bot_instance',
] as const;
export type LockTargetKind = (typeof lockTargetKinds)[number];

const targetName = z.string().trim().min(1, 'must not be empty').max(256);

/** A device's id: what the Audit Log's sign-in events call `mfa_device_uuid`. */
const deviceId = z
  .string()
  .trim()
  .pipe(z.uuid({ error: 'an MFA device is named by its id (a UUID), as sign-in events show it' }));

/**
 * What a lock on an access request adds to its message for the people it locks out: the lock is
 * on a credential that assumed the request, so a new sign-in (without it) goes on. The console
 * reads it to say so instead of "wait for the lock to be lifted".
 */
export const lockedRequestHint = 'sign in again to go on without it';

/** An access request's id: what the Access Requests page and `postern request ls` show. */
const requestId = z
  .string()
  .trim()
  .pipe(z.uuid({ error: 'an access request is named by its id (a UUID), as its page shows it' }));

/** A bot instance's id: what Manage Bots and `postern bots ls` show for each running copy. */
const botInstanceId = z
  .string()
  .trim()
  .pipe(z.uuid({ error: 'a bot instance is named by its id (a UUID), as Manage Bots lists it' }));

/** `{<kind>: <name>}` with exactly one kind, as the reference's body has it. */
export const lockTargetsSchema = z
  .strictObject({
    ...(Object.fromEntries(lockTargetKinds.map((kind) => [kind, targetName.optional()])) as Record<
      LockTargetKind,
      z.ZodOptional<typeof targetName>
    >),
    mfa_device: deviceId.optional(),
    access_request: requestId.optional(),
    bot_instance: botInstanceId.optional(),
  })
  .refine((targets) => Object.values(targets).filter(Boolean).length === 1, {
    message: `name exactly one target: ${lockTargetKinds.join(', ')}`,
  });
export type LockTargets = z.infer<typeof lockTargetsSchema>;

/**
 * `PUT /sites/{clusterId}/locks`: creates a lock; the server names it with a UUID. `ttl` is a
 * duration ('30m', '5h', '1h30m') from now, `expires` an RFC 3339 time; give at most one. With
 * neither (or an empty ttl) the lock stays until deleted.
 */
export const createLockRequestSchema = z
  .object({
    targets: lockTargetsSchema,
    message: z.string().max(1024, 'at most 1024 characters').default(''),
    ttl: z.string().max(32).optional(),
    expires: z.iso.datetime({ offset: true, error: 'expected an RFC 3339 time' }).optional(),
  })
  .refine((body) => !(body.ttl && body.expires), {
    message: 'give ttl or expires, not both',
    path: ['expires'],
  });
export type CreateLockRequest = z.input<typeof createLockRequestSchema>;

export const lockTargetSchema = z.object({ kind: z.enum(lockTargetKinds), name: z.string() });
export type LockTarget = z.infer<typeof lockTargetSchema>;

/** One lock as `GET /sites/{clusterId}/locks` lists it and `PUT` returns it. */
export const lockJsonSchema = z.object({
  /** The lock's UUID. */
  name: z.string(),
  message: z.string(),
  /** RFC 3339; '' when the lock never expires. */
  expires: z.string(),
  createdAt: z.string(),
  /** Who created it: a user name, or `cli:<os user>` for the admin command. */
  createdBy: z.string(),
  /** Always one target today; a list so that combined targets can come later. */
  targets: z.array(lockTargetSchema),
});
export type LockJson = z.infer<typeof lockJsonSchema>;
