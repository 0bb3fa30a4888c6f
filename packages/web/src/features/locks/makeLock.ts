import type { LockJson, LockTarget, LockTargetKind } from '@postern/contracts';
import { formatDateTime, parseTimestamp } from '../../lib/format';

/** The console's model of a lock (reference §1.10). */
export interface Lock {
  id: string;
  targets: LockTarget[];
  /** 'user: alice' (several targets joined with ', '). */
  targetText: string;
  message: string;
  createdBy: string;
  createdAt: Date | undefined;
  createdAtText: string;
  expires: Date | undefined;
  /** 'Never' for a lock that stays until deleted. */
  expiresText: string;
}

export const lockTargetLabels: Record<LockTargetKind, string> = {
  user: 'User',
  role: 'Role',
  login: 'Login',
  node: 'Node',
  windows_desktop: 'Desktop',
  mfa_device: 'MFA Device',
  access_request: 'Access Request',
  bot_instance: 'Bot Instance',
};

export function makeLock(json: LockJson): Lock {
  const createdAt = parseTimestamp(json.createdAt);
  const expires = parseTimestamp(json.expires);
  return {
    id: json.name,
    targets: json.targets,
    targetText: json.targets.map((t) => `${t.kind}: ${t.name}`).join(', '),
    message: json.message,
    createdBy: json.createdBy,
    createdAt,
    createdAtText: createdAt ? formatDateTime(createdAt) : '',
    expires,
    expiresText: expires ? formatDateTime(expires) : 'Never',
  };
}

/** Newest first. */
export function makeLocks(list: LockJson[]): Lock[] {
  return list
    .map(makeLock)
    .sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0));
}
