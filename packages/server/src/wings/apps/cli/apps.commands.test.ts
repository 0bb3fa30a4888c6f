import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCli } from '../../../main.js';
import { cliDataDir } from '../../../cli/cli-harness.testkit.js';
import { recordPublicUrl } from '../../../identity/bootstrap/first-admin.js';
import { AppJwtSigner } from '../app-jwt.js';

// `postern apps jwt rotate` against a data dir, while a "proxy" (a signer on the same SQLite
// file, as `postern start` has) keeps signing: it picks the new key up on its next refresh.

const { state } = cliDataDir();
beforeAll(() => recordPublicUrl(state.server, 'https://proxy.example:3080'));

describe('postern apps jwt rotate', () => {
  it('gives the proxy a new key and keeps the old one in the JWKS', async () => {
    const proxy = new AppJwtSigner(state.server, () => 'https://proxy.example:3080');
    await proxy.start();
    const [before] = proxy.jwks().keys;
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await buildCli().parseAsync([
        'node',
        'postern',
        'apps',
        'jwt',
        'rotate',
        '--data-dir',
        state.dir,
      ]);
      const printed = log.mock.calls.flat().join('\n');
      expect(printed).toMatch(/signed with key [\w-]{43} from now on/);
      expect(printed).toContain(`Key ${before!.kid} stays in /.well-known/jwks.json`);
    } finally {
      log.mockRestore();
    }
    await vi.waitFor(async () => {
      await proxy.refresh();
      expect(proxy.jwks().keys.map((key) => key.kid)).toEqual([
        expect.not.stringMatching(before!.kid),
        before!.kid,
      ]);
    });
    proxy.stop();
  });
});
