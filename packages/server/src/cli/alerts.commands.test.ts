import { describe, expect, it } from 'vitest';
import { alertsCreate, alertsList, alertsRemove } from './alerts.commands.js';
import { cliDataDir } from './cli-harness.testkit.js';

const { run, failure } = cliDataDir();

describe('postern alerts', () => {
  it('posts an alert, lists it with its severity and link, and takes it down', async () => {
    let id = '';
    const posted = await run(async (ctx, print) => {
      id = await alertsCreate(
        ctx,
        'Maintenance at 22:00',
        { severity: 'high', ttl: '8h', link: 'https://status.example.com' },
        print,
      );
    });
    expect(posted[0]).toMatch(
      /^Posted alert [0-9a-f-]{36} to everyone in the console, until \S+Z\.$/,
    );
    const listed = await run((ctx, print) => alertsList(ctx, print));
    expect(listed[0]).toMatch(/^ID\s+Severity\s+Expires\s+Message\s+Link$/);
    expect(listed[1]).toContain(id);
    expect(listed[1]).toMatch(/danger .* Maintenance at 22:00\s+https:\/\/status\.example\.com$/);
    expect(await run((ctx, print) => alertsRemove(ctx, id, print))).toEqual([
      `Removed alert ${id}.`,
    ]);
    expect(await run((ctx, print) => alertsList(ctx, print))).toEqual(['No alerts.']);
  });

  it('refuses an unsafe link and an unknown alert, in one line', async () => {
    expect(
      await failure((ctx, print) => alertsCreate(ctx, 'hi', { link: 'file:///etc/passwd' }, print)),
    ).toBe('the link must be an http:// or https:// URL');
    expect(
      await failure((ctx, print) =>
        alertsRemove(ctx, '00000000-0000-4000-8000-000000000000', print),
      ),
    ).toBe('alert 00000000-0000-4000-8000-000000000000 not found');
  });
});
