import { scriptPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import {
  configureAdScript,
  invalidTokenPowershell,
  powershellQuote,
} from './windows-ad-scripts.js';

// The Active Directory scripts are PowerShell for a Windows domain controller, which cannot run
// here: these tests check who gets them and what the server writes into them.
let app: TestApp;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  app = await createTestApp();
  for (const role of ['WindowsDesktop', 'Node', 'Db'] as const) {
    const issued = await app.services.joinTokens.create(
      { roles: [role], join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
      hostActor('cli:test'),
    );
    tokens[role] = issued.token;
  }
});
afterAll(() => app.close());

const scripts = [
  ['install-ad-ds.ps1', scriptPaths.installAdDs, /Install-ADDSForest/],
  ['install-ad-cs.ps1', scriptPaths.installAdCs, /Install-AdcsCertificationAuthority/],
  ['configure-ad.ps1', scriptPaths.configureAd, /New-GPO/],
] as const;

describe('the Active Directory scripts for desktop access', () => {
  for (const [name, path, cmdlet] of scripts) {
    it(`${name}: served for a WindowsDesktop token only, never cached, without the token`, async () => {
      const served = await app.server.inject({ method: 'GET', url: path(tokens.WindowsDesktop!) });
      expect(served.statusCode).toBe(200);
      expect(served.headers['cache-control']).toBe('no-store');
      expect(served.body).toMatch(/^#Requires -RunAsAdministrator\n/);
      expect(served.body).toMatch(cmdlet);
      expect(served.body).toContain("$ErrorActionPreference = 'Stop'");
      expect(served.body).not.toContain(tokens.WindowsDesktop);
      for (const other of [tokens.Node!, tokens.Db!, 'not-a-token']) {
        const refused = await app.server.inject({ method: 'GET', url: path(other) });
        expect(refused.statusCode, other).toBe(404);
        expect(refused.body).toBe(invalidTokenPowershell);
      }
    });
  }

  it('install-ad-ds.ps1 has its param block first, as PowerShell requires', async () => {
    const served = await app.server.inject({
      method: 'GET',
      url: scriptPaths.installAdDs(tokens.WindowsDesktop!),
    });
    const statements = served.body.split('\n').filter((line) => line && !line.startsWith('#'));
    expect(statements[0]).toBe('param(');
  });

  it('configure-ad.ps1 names the proxy as a quoted string and writes resources create -f reads', () => {
    const script = configureAdScript({ baseUrl: "https://o'brien.example:3080" });
    expect(script).toContain("$proxyUrl = 'https://o''brien.example:3080'");
    expect(powershellQuote("a'b$c")).toBe("'a''b$c'");
    // The resources it writes are the desktop shape `postern create -f` takes.
    for (const line of ["'kind: windows_desktop'", "'version: v3'", "'  protocol: rdp'"]) {
      expect(script).toContain(`$lines += ${line}`);
    }
  });
});
