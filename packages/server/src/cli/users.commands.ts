import { userInfo } from 'node:os';
import { userNameSchema } from '@postern/contracts';
import { ConfigError } from '../config/config.js';
import { userTokenUrl } from '../identity/user-tokens/user-token-url.js';
import type { AdminContext } from './admin-context.js';
import { hostActor } from '../access-control/access/actor.js';
import { listKind, userKind } from './kinds.js';
import { printTable, type Print } from './table.js';
import { deviceView } from '../identity/mfa/devices.js';

export type { Print };

/** Who audit events name for commands run on the host: the OS account, marked as the CLI. */
export const cliActor = () => `cli:${safeUserName()}`;

export const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function checkName(name: string): string {
  const parsed = userNameSchema.safeParse(name);
  if (!parsed.success)
    throw new ConfigError(`user name '${name}' ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** `postern users add NAME --roles a,b [--logins x,y] [--ttl 1h]`: a user and their invite link. */
export async function usersAdd(
  ctx: AdminContext,
  name: string,
  options: { roles: string; logins?: string; ttl?: string },
  print: Print,
): Promise<string> {
  const roles = list(options.roles);
  if (roles.length === 0)
    throw new ConfigError('--roles needs at least one role, for example --roles access');
  await ctx.identity.users.create(
    { name: checkName(name), roles, logins: list(options.logins) },
    cliActor(),
  );
  const token = await ctx.identity.tokens.create(name, 'invite', options.ttl, cliActor());
  const url = userTokenUrl(ctx.baseUrl, token);
  print(
    `User ${name} has been created. Share this one-time invite link (valid until ${token.expiry}):`,
  );
  print(url);
  return url;
}

/** `postern users reset NAME [--ttl 1h]`: a link that sets a new password and second factor. */
export async function usersReset(
  ctx: AdminContext,
  name: string,
  options: { ttl?: string },
  print: Print,
): Promise<string> {
  const token = await ctx.identity.tokens.create(
    checkName(name),
    'password',
    options.ttl,
    cliActor(),
  );
  const url = userTokenUrl(ctx.baseUrl, token);
  print(
    `Share this one-time reset link with ${name} (valid until ${token.expiry}). Using it replaces their password and second-factor devices:`,
  );
  print(url);
  return url;
}

/** `postern users unlock NAME`: ends a lockout after failed sign-ins. */
export async function usersUnlock(ctx: AdminContext, name: string, print: Print): Promise<void> {
  const wasLocked = await ctx.identity.lockout.unlock(checkName(name), cliActor());
  print(wasLocked ? `User ${name} is unlocked.` : `User ${name} was not locked.`);
}

/** `postern users ls`: name, roles and lock state of every user. */
export const usersList = (ctx: AdminContext, print: Print) =>
  listKind(ctx, userKind, hostActor(cliActor()), print);

/** `postern users update NAME --set-roles a,b [--set-logins x,y]`: replaces roles or logins. */
export async function usersUpdate(
  ctx: AdminContext,
  name: string,
  options: { setRoles?: string; setLogins?: string },
  print: Print,
): Promise<void> {
  if (options.setRoles === undefined && options.setLogins === undefined) {
    throw new ConfigError('nothing to change: pass --set-roles and/or --set-logins');
  }
  const roles = options.setRoles === undefined ? undefined : list(options.setRoles);
  if (roles?.length === 0) {
    throw new ConfigError('--set-roles needs at least one role, for example --set-roles access');
  }
  await ctx.identity.users.update(
    {
      name: checkName(name),
      ...(roles ? { roles } : {}),
      ...(options.setLogins === undefined ? {} : { traits: { logins: list(options.setLogins) } }),
    },
    cliActor(),
  );
  print(`User ${name} has been updated.`);
}

/**
 * `postern users devices NAME`: the user's MFA devices with their ids, what an `mfa_device` lock
 * names (`postern locks add --mfa-device ID`). Never a secret or a key.
 */
export async function usersDevices(ctx: AdminContext, name: string, print: Print): Promise<void> {
  const user = checkName(name);
  await ctx.identity.users.get(user); // a missing user: "user X not found"
  const { devices } = await ctx.identity.usersStore.credentials(user);
  if (devices.length === 0) return print(`${user} has no MFA devices.`);
  const rows = devices
    .map(deviceView)
    .map((device) => [
      device.id,
      device.name,
      device.type,
      device.usage,
      device.addedAt,
      device.lastUsed,
    ]);
  printTable(['ID', 'NAME', 'TYPE', 'USAGE', 'ADDED', 'LAST USED'], rows, print);
}

/** `postern users rm NAME`: deletes the user, their secrets, sessions and links. */
export async function usersRemove(ctx: AdminContext, name: string, print: Print): Promise<void> {
  await ctx.identity.users.remove(checkName(name), cliActor());
  print(`User ${name} has been deleted.`);
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
