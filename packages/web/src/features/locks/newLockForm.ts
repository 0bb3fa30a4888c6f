import { lockTargetKinds, type CreateLockRequest, type LockTargetKind } from '@postern/contracts';
import { parseTypedDateTime } from '../../components/DateTimeField';

/** What the Create New Lock form holds, as typed. */
export interface NewLockForm {
  kind: LockTargetKind;
  name: string;
  message: string;
  /** A duration ('30m', '8h', '1h30m'), or 'never' / empty for a lock that stays. */
  ttl: string;
  /** `YYYY-MM-DDTHH:mm` in the browser's zone (as typed, when it is no moment); empty when the TTL decides. */
  expiresAt: string;
}

export type NewLockErrors = Partial<Record<keyof NewLockForm, string>>;

export const ttlSuggestions = ['1h', '8h', '24h', 'never'] as const;

export const emptyNewLockForm = (): NewLockForm => ({
  kind: 'user',
  name: '',
  message: '',
  ttl: 'never',
  expiresAt: '',
});

/**
 * The form a link asked for (`/web/locks/new?kind=access_request&name=ID`, from a request's
 * page): an unknown kind is ignored, so the form starts empty rather than wrong.
 */
export function newLockFormFrom(search: URLSearchParams): NewLockForm {
  const form = emptyNewLockForm();
  const kind = search.get('kind');
  if (!kind || !(lockTargetKinds as readonly string[]).includes(kind)) return form;
  return { ...form, kind: kind as LockTargetKind, name: search.get('name') ?? '' };
}

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go-style duration ('1h30m', '45s', '1.5h') in milliseconds, or undefined if it is not one. */
export function parseDurationMs(text: string): number | undefined {
  let rest = text.trim();
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const match = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * (unitMs[match[2] ?? ''] ?? NaN);
    rest = rest.slice(match[0].length);
  }
  return Number.isFinite(total) ? total : undefined;
}

const neverTexts = new Set(['', 'never']);
export const maxMessageLength = 1024;

/**
 * Checks the form and builds the `PUT locks` body: exactly one target, a TTL or an expiry in the
 * future (not both), or neither for a lock that stays until deleted.
 */
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function validateNewLock(
  form: NewLockForm,
  now: Date,
): { errors: NewLockErrors; request?: CreateLockRequest } {
  const errors: NewLockErrors = {};
  const name = form.name.trim();
  const ttl = form.ttl.trim().toLowerCase();
  const neverByTtl = neverTexts.has(ttl);

  if (!lockTargetKinds.includes(form.kind)) errors.kind = 'Choose what to lock';
  if (name === '') errors.name = 'Enter the name of the target to lock';
  else if (name.length > 256) errors.name = 'At most 256 characters';
  else if (form.kind === 'mfa_device' && !uuidPattern.test(name)) {
    errors.name = "Enter the device's ID (a UUID: the sign-in event's mfa_device_uuid)";
  } else if (form.kind === 'access_request' && !uuidPattern.test(name)) {
    errors.name = "Enter the request's ID (a UUID, as its page shows it)";
  } else if (form.kind === 'bot_instance' && !uuidPattern.test(name)) {
    errors.name = "Enter the instance's ID (a UUID, as Manage Bots lists it)";
  }
  if (form.message.length > maxMessageLength) {
    errors.message = `At most ${maxMessageLength} characters`;
  }

  let expires: string | undefined;
  if (form.expiresAt) {
    // The field's own format only: `new Date` would also take text such as '2026-02-30 10:00'.
    const local = parseTypedDateTime(form.expiresAt);
    const at = new Date(local ?? Number.NaN);
    if (Number.isNaN(at.getTime())) errors.expiresAt = 'Use YYYY-MM-DD HH:mm (24-hour)';
    else if (at.getTime() <= now.getTime()) errors.expiresAt = 'Choose a time in the future';
    else expires = at.toISOString();
    if (!neverByTtl) errors.ttl = 'Give a TTL or an expiry time, not both';
  }
  if (!neverByTtl && !errors.ttl) {
    const ms = parseDurationMs(ttl);
    if (ms === undefined) errors.ttl = "Use a duration such as 30m, 8h or 1h30m, or 'never'";
    else if (ms <= 0) errors.ttl = "Use a duration longer than 0, or 'never'";
  }

  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    request: {
      targets: { [form.kind]: name },
      message: form.message.trim(),
      ...(neverByTtl ? {} : { ttl }),
      ...(expires ? { expires } : {}),
    },
  };
}
