import { describe, expect, it, vi } from 'vitest';
import { buildCli } from '../main.js';
import { ClusterCa } from '../ssh/ca.service.js';
import { caExport } from './ca.commands.js';
import { cliDataDir } from './cli-harness.testkit.js';

const { state, run, failure } = cliDataDir();

describe('postern ca export', () => {
  it('prints the TrustedUserCAKeys line and the known_hosts line of the CAs a server uses', async () => {
    const [userLine] = await run((ctx, print) => caExport(ctx, { type: 'user' }, print));
    const [hostLine] = await run((ctx, print) => caExport(ctx, { type: 'host' }, print));
    expect(userLine).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI\S+ postern-user-ca@\S+$/);
    expect(hostLine).toMatch(
      /^@cert-authority \* ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI\S+ postern-host-ca$/,
    );
    // The command created the CAs in the storage the running server shares, once.
    const server = await ClusterCa.loadOrCreate(state.server, 'ignored-for-existing-cas');
    expect(userLine?.split(' ')[1]).toBe(server.userCaPublicKey.split(' ')[1]);
    expect(hostLine?.split(' ')[3]).toBe(server.hostCaPublicKey.split(' ')[1]);
    const [again] = await run((ctx, print) => caExport(ctx, { type: 'user' }, print));
    expect(again).toBe(userLine);
  });

  it('refuses an unknown type', async () => {
    expect(await failure((ctx, print) => caExport(ctx, { type: 'root' }, print))).toMatch(
      /--type must be user or host/,
    );
  });

  it('wires the command into the binary', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await buildCli().parseAsync([
        'node',
        'postern',
        'ca',
        'export',
        '--type',
        'host',
        '--data-dir',
        state.dir,
      ]);
      expect(String(log.mock.calls[0]?.[0])).toMatch(/^@cert-authority \* ssh-ed25519 /);
    } finally {
      log.mockRestore();
    }
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await expect(
        buildCli().parseAsync([
          'node',
          'postern',
          'ca',
          'export',
          '--type',
          'both',
          '--data-dir',
          state.dir,
        ]),
      ).rejects.toThrow(/Allowed choices are user, host/);
    } finally {
      stderr.mockRestore();
    }
  });
});
