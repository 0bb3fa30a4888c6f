import { userInfo } from 'node:os';
import { userNameSchema } from '@postern/contracts';
import { ConfigError } from '../config/config.js';
import { userTokenUrl } from '../modules/user-tokens/user-tokens.service.js';
import type { AdminContext } from './admin-context.js';

export type Print = (line: string) => void;

/** Who audit events name for commands run on the host: the OS account, marked as the CLI. */
export const cliActor = () => `cli:${safeUserName()}`;

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

function checkName(name: string): string {
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
export async function usersList(ctx: AdminContext, print: Print): Promise<void> {
  const rows = (await ctx.identity.users.list()).map((user) => [
    user.metadata.name,
    user.spec.roles.join(','),
    ctx.identity.users.isLocked(user) ? `until ${user.status.lockedUntil}` : 'no',
  ]);
  const table = [['NAME', 'ROLES', 'LOCKED'], ...rows];
  const widths = [0, 1].map((column) => Math.max(...table.map((row) => row[column]!.length)));
  for (const row of table) {
    print(`${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}`.trimEnd());
  }
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
