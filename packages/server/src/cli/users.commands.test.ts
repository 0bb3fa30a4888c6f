import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend/sqlite.js';
import { ConfigError } from '../config/config.js';
import { ApiError } from '../errors.js';
import { SqliteAuditStore } from '../modules/audit/index.js';
import { recordPublicUrl } from '../identity/bootstrap/first-admin.js';
import { openAdminContext, type AdminContext } from './admin-context.js';
import { newDevice } from '../identity/mfa/devices.js';
import { usersAdd, usersDevices, usersList, usersReset, usersUnlock } from './users.commands.js';

let dir: string;
let server: SqliteBackend;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-cli-'));
  // Stands in for a running `postern start` on the same data dir.
  server = new SqliteBackend(path.join(dir, 'postern.db'));
  await recordPublicUrl(server, 'http://localhost:4567');
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs one admin command the way `main` does: open the storage, run, close. */
async function run<T>(
  command: (
    ctx: Awaited<ReturnType<typeof openAdminContext>>,
    print: (line: string) => void,
  ) => Promise<T>,
) {
  const lines: string[] = [];
  const ctx = await openAdminContext({ dataDir: dir });
  try {
    const result = await command(ctx, (line) => lines.push(line));
    return { result, lines };
  } finally {
    await ctx.close();
  }
}

describe('postern users', () => {
  it('add creates the user where the running server sees it and prints its invite link', async () => {
    const { result, lines } = await run((ctx, print) =>
      usersAdd(ctx, 'bob', { roles: 'access, auditor', logins: 'root,ubuntu', ttl: '2h' }, print),
    );
    expect(result).toMatch(/^http:\/\/localhost:4567\/web\/invite\/[0-9a-f]{32}$/);
    expect(lines).toEqual([expect.stringMatching(/^User bob has been created\./), result]);
    const stored = JSON.parse((await server.get('/users/bob'))!.value);
    expect(stored.spec).toMatchObject({
      roles: ['access', 'auditor'],
      traits: { logins: ['root', 'ubuntu'] },
    });
    const audit = new SqliteAuditStore(path.join(dir, 'audit.db'), 'c');
    try {
      const { events } = await audit.search({
        from: new Date(0),
        to: new Date(Date.now() + 1e7),
        limit: 10,
      });
      expect(events.map((event) => event.code).sort()).toEqual(['T1002I', 'T6000I']);
      expect(events[0]!.user).toMatch(/^cli:/);
    } finally {
      await audit.close();
    }
  });

  it('reset prints a reset link; ls shows users; unlock ends a lock', async () => {
    const reset = await run((ctx, print) => usersReset(ctx, 'bob', {}, print));
    expect(reset.result).toMatch(/\/web\/reset\/[0-9a-f]{32}$/);

    const user = JSON.parse((await server.get('/users/bob'))!.value);
    user.status = { lockedUntil: new Date(Date.now() + 60_000).toISOString() };
    await server.upsert({ key: '/users/bob', value: JSON.stringify(user) });
    const listed = await run((ctx, print) => usersList(ctx, print));
    expect(listed.lines[0]).toMatch(/^NAME\s+ROLES\s+LOCKED$/);
    expect(listed.lines[1]).toMatch(/^bob\s+access,auditor\s+until \S+$/);

    const unlocked = await run((ctx, print) => usersUnlock(ctx, 'bob', print));
    expect(unlocked.lines).toEqual(['User bob is unlocked.']);
    expect(JSON.parse((await server.get('/users/bob'))!.value).status).toEqual({});
  });

  it("devices lists a user's devices with the ids an mfa_device lock names, never a secret", async () => {
    const none = await run((ctx, print) => usersDevices(ctx, 'bob', print));
    expect(none.lines).toEqual(['bob has no MFA devices.']);
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const phone = await run((ctx) =>
      ctx.identity.usersStore.mutateCredentials('bob', (credentials) => {
        const device = newDevice({
          name: 'phone',
          now: Date.parse('2026-11-01T10:00:00Z'),
          usage: 'mfa',
          totp: { secret, step: 1 },
        });
        return { credentials: { ...credentials, devices: [device] }, result: device };
      }),
    );
    const listed = await run((ctx, print) => usersDevices(ctx, 'bob', print));
    expect(listed.lines[0]).toMatch(/^ID\s+NAME\s+TYPE\s+USAGE\s+ADDED\s+LAST USED$/);
    expect(listed.lines[1]).toMatch(
      new RegExp(`^${phone.result.id}\\s+phone\\s+TOTP\\s+mfa\\s+2026-11-01T10:00:00.000Z`),
    );
    expect(listed.lines.join('\n')).not.toContain(secret);
    await expect(run((ctx, print) => usersDevices(ctx, 'ghost', print))).rejects.toThrow(
      'user ghost not found',
    );
  });

  it('refuses bad input with an error that main prints on one line (exit code 2)', async () => {
    const attempts: ((ctx: AdminContext, print: (line: string) => void) => Promise<unknown>)[] = [
      (ctx, print) => usersAdd(ctx, 'no/slash', { roles: 'access' }, print),
      (ctx, print) => usersAdd(ctx, 'eve', { roles: ' , ' }, print),
      (ctx, print) => usersAdd(ctx, 'bob', { roles: 'access' }, print),
      (ctx, print) => usersReset(ctx, 'bob', { ttl: '49h' }, print),
      (ctx, print) => usersReset(ctx, 'bob', { ttl: 'soon' }, print),
      (ctx, print) => usersReset(ctx, 'ghost', {}, print),
      (ctx, print) => usersUnlock(ctx, 'ghost', print),
    ];
    for (const attempt of attempts) {
      const error = await run(attempt).catch((caught: unknown) => caught);
      expect(
        error instanceof ConfigError || (error instanceof ApiError && error.statusCode < 500),
        String(error),
      ).toBe(true);
      expect((error as Error).message).not.toContain('\n');
    }
    await expect(openAdminContext({ dataDir: path.join(dir, 'missing') })).rejects.toThrow(
      /no Postern state/,
    );
  });
});
