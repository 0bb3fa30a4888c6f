import { createLockRequestSchema, lockTargetKinds, type LockTargetKind } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import {
  emptyNewLockForm,
  newLockFormFrom,
  parseDurationMs,
  validateNewLock,
  type NewLockForm,
} from './newLockForm';

const now = new Date('2024-03-01T12:00:00Z');
const form = (fields: Partial<NewLockForm>): NewLockForm => ({ ...emptyNewLockForm(), ...fields });

describe('parseDurationMs', () => {
  it.each([
    ['1h', 3_600_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['45s', 45_000],
    ['250ms', 250],
  ])('%s is %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['', 'h', '1d', '10', 'soon', '1h 30m', '-1h'])('%j is not a duration', (text) =>
    expect(parseDurationMs(text)).toBeUndefined(),
  );
});

describe('validateNewLock', () => {
  it('builds a lock that stays, for TTL never or empty', () => {
    for (const ttl of ['never', '', ' Never ']) {
      const { errors, request } = validateNewLock(form({ name: ' alice ', ttl }), now);
      expect(errors).toEqual({});
      expect(request).toEqual({ targets: { user: 'alice' }, message: '' });
    }
  });

  it('sends a TTL as given, with the target kind and the message', () => {
    const { request } = validateNewLock(
      form({ kind: 'role', name: 'contractors', message: ' audit freeze ', ttl: '8h' }),
      now,
    );
    expect(request).toEqual({
      targets: { role: 'contractors' },
      message: 'audit freeze',
      ttl: '8h',
    });
    // What the console sends passes the server's contract.
    expect(createLockRequestSchema.safeParse(request).success).toBe(true);
  });

  it('sends an expiry time as RFC 3339', () => {
    const { request } = validateNewLock(
      form({ kind: 'login', name: 'root', expiresAt: '2024-03-02T08:30' }),
      now,
    );
    expect(request).toEqual({
      targets: { login: 'root' },
      message: '',
      expires: new Date('2024-03-02T08:30').toISOString(),
    });
    expect(createLockRequestSchema.safeParse(request).success).toBe(true);
  });

  it('knows only the kinds the server enforces, and refuses any other', () => {
    expect(lockTargetKinds).toEqual([
      'user',
      'role',
      'login',
      'node',
      'windows_desktop',
      'mfa_device',
      'access_request',
      'bot_instance',
    ]);
    const other = form({ kind: 'device' as LockTargetKind, name: 'key-1' });
    expect(validateNewLock(other, now).errors).toEqual({ kind: 'Choose what to lock' });
    const body = { targets: { device: 'key-1' }, message: '' };
    expect(createLockRequestSchema.safeParse(body).success).toBe(false);
  });

  it('needs a target name', () => {
    expect(validateNewLock(form({ name: '  ' }), now).errors).toEqual({
      name: 'Enter the name of the target to lock',
    });
  });

  it('takes an MFA device by its ID, as the server does', () => {
    const byName = validateNewLock(form({ kind: 'mfa_device', name: 'phone' }), now);
    expect(byName.errors.name).toBe(
      "Enter the device's ID (a UUID: the sign-in event's mfa_device_uuid)",
    );
    const id = '0b5d6f3e-8c1a-4f2b-9e7d-1a2b3c4d5e6f';
    const byId = validateNewLock(form({ kind: 'mfa_device', name: ` ${id} ` }), now);
    expect(byId.errors).toEqual({});
    expect(createLockRequestSchema.parse(byId.request).targets).toEqual({ mfa_device: id });
  });

  it('takes an access request and a bot instance by their IDs, as the server does', () => {
    const byName = validateNewLock(form({ kind: 'access_request', name: 'deploy' }), now);
    expect(byName.errors.name).toBe("Enter the request's ID (a UUID, as its page shows it)");
    const id = '7a8b9c0d-2222-4e1f-9a2b-3c4d5e6f7a8b';
    const byId = validateNewLock(form({ kind: 'access_request', name: id }), now);
    expect(createLockRequestSchema.parse(byId.request).targets).toEqual({ access_request: id });

    const instanceByName = validateNewLock(form({ kind: 'bot_instance', name: 'deployer' }), now);
    expect(instanceByName.errors.name).toBe(
      "Enter the instance's ID (a UUID, as Manage Bots lists it)",
    );
    const instance = validateNewLock(form({ kind: 'bot_instance', name: id }), now);
    expect(createLockRequestSchema.parse(instance.request).targets).toEqual({ bot_instance: id });
  });

  it('refuses a TTL that is not a duration, or zero', () => {
    expect(validateNewLock(form({ name: 'a', ttl: 'tomorrow' }), now).errors.ttl).toBe(
      "Use a duration such as 30m, 8h or 1h30m, or 'never'",
    );
    expect(validateNewLock(form({ name: 'a', ttl: '0s' }), now).errors.ttl).toBe(
      "Use a duration longer than 0, or 'never'",
    );
  });

  it('refuses an expiry in the past, and a TTL together with an expiry', () => {
    expect(validateNewLock(form({ name: 'a', expiresAt: '2024-02-01T00:00' }), now).errors).toEqual(
      { expiresAt: 'Choose a time in the future' },
    );
    expect(
      validateNewLock(form({ name: 'a', ttl: '1h', expiresAt: '2030-01-01T00:00' }), now).errors,
    ).toEqual({ ttl: 'Give a TTL or an expiry time, not both' });
  });

  it('takes an expiry only in the 24-hour form the field shows, and only a real moment', () => {
    for (const typed of ['2030-02-30 10:00', '2030-01-01 7pm', '01/02/2030 10:00']) {
      expect(validateNewLock(form({ name: 'a', expiresAt: typed }), now).errors).toEqual({
        expiresAt: 'Use YYYY-MM-DD HH:mm (24-hour)',
      });
    }
    const { request } = validateNewLock(form({ name: 'a', expiresAt: '2030-01-01 18:30' }), now);
    expect(request?.expires).toBe(new Date(2030, 0, 1, 18, 30).toISOString());
  });

  it('limits the message to 1024 characters', () => {
    const { errors, request } = validateNewLock(
      form({ name: 'a', message: 'x'.repeat(1025) }),
      now,
    );
    expect(errors.message).toBe('At most 1024 characters');
    expect(request).toBeUndefined();
  });
});

describe('newLockFormFrom', () => {
  it('starts with the kind and name a link names, and ignores a kind it does not know', () => {
    const id = '7a8b9c0d-2222-4e1f-9a2b-3c4d5e6f7a8b';
    const linked = newLockFormFrom(new URLSearchParams({ kind: 'access_request', name: id }));
    expect(linked).toEqual({ ...emptyNewLockForm(), kind: 'access_request', name: id });
    const unknown = newLockFormFrom(new URLSearchParams({ kind: 'device', name: 'x' }));
    expect(unknown).toEqual(emptyNewLockForm());
  });
});
