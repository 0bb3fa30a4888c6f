import { lockTargetKinds, type LockTargetKind } from '@postern/contracts';
import { ConfigError } from '../config/config.js';
import { hostActor } from '../access-control/access/actor.js';
import { describeTarget } from '../access-control/locks/locks.service.js';
import type { AdminContext } from './admin-context.js';
import type { Print } from './table.js';
import { cliActor } from './users.commands.js';

/**
 * The target flags, by lock target kind: --user, --role, --login, --node, --windows-desktop,
 * --mfa-device, --access-request, --bot-instance.
 */
export const targetFlags: Record<LockTargetKind, string> = Object.fromEntries(
  lockTargetKinds.map((kind) => [kind, kind.replace(/_/g, '-')]),
) as Record<LockTargetKind, string>;

export interface LocksAddOptions {
  user?: string;
  role?: string;
  login?: string;
  node?: string;
  windowsDesktop?: string;
  mfaDevice?: string;
  accessRequest?: string;
  botInstance?: string;
  message?: string;
  ttl?: string;
  expires?: string;
}

const optionKey = (kind: LockTargetKind) =>
  kind.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()) as keyof LocksAddOptions;

/** `postern locks add --user X|--role R|… [--message M] [--ttl 1h | --expires TIME]`. */
export async function locksAdd(
  ctx: AdminContext,
  options: LocksAddOptions,
  print: Print,
): Promise<string> {
  const targets = Object.fromEntries(
    lockTargetKinds.flatMap((kind) => {
      const value = options[optionKey(kind)];
      return value === undefined ? [] : [[kind, value]];
    }),
  );
  if (Object.keys(targets).length !== 1) {
    const flags = Object.values(targetFlags).map((flag) => `--${flag}`);
    throw new ConfigError(`name exactly one target: ${flags.join(', ')}`);
  }
  const lock = await ctx.access.locks.create(
    { targets, message: options.message, ttl: options.ttl, expires: options.expires },
    hostActor(cliActor()),
  );
  const until = lock.spec.expires ? `until ${lock.spec.expires}` : 'until it is deleted';
  print(`Created lock ${lock.metadata.name} on ${describeTarget(lock)}, ${until}.`);
  return lock.metadata.name;
}
