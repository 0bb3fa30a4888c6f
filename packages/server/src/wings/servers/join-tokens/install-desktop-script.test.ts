import { scriptPaths } from '@postern/contracts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectRefusedScript,
  installScriptWorld,
  runInstalledAgent,
} from './install-script.testkit.js';

// install-desktop.sh as an admin runs it: `curl … | bash` on a host that reaches a VNC desktop,
// which starts the real `postern agent --desktop` (the built binary) in the foreground.

const world = installScriptWorld();
let desktopToken: string;
let dbToken: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-install-desktop-'));
  desktopToken = await world.token(['WindowsDesktop']);
  dbToken = await world.token(['Db']);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fetchScript = (token: string, query: Record<string, string>) =>
  world.fetchScript(scriptPaths.installDesktop(token, { name: '', uri: '' }), query);

describe('GET /scripts/:token/install-desktop.sh', () => {
  it('refuses a token of another kind, and a bad name or uri, with a script that fails', async () => {
    const wrong = await fetchScript(dbToken, { name: 'build', uri: 'vnc://127.0.0.1:5901' });
    expect(wrong.statusCode).toBe(404);
    expect(wrong.body).not.toContain(dbToken);
    const refused = async (query: Record<string, string>, why: string) =>
      expectRefusedScript(await fetchScript(desktopToken, query), why);
    await refused({ name: 'Build', uri: 'vnc://h:5901' }, 'name: desktop names are DNS labels');
    await refused({ name: 'build', uri: 'rdp://h:3389' }, 'uri: expected vnc://host:port');
    await refused({ name: 'build', uri: 'vnc://:secret@h:5901' }, 'uri: no password in the uri');
    await refused(
      { name: 'build', uri: 'vnc://h:5901?password_file=pass' },
      'uri: password_file is an absolute path on the desktop host',
    );
  });

  it('runs a real agent that serves the desktop through its tunnel, its password file read there', async () => {
    const passwordFile = path.join(dir, 'vnc-pass');
    await writeFile(passwordFile, 'secret12\n', { mode: 0o600 });
    const uri = `vnc://127.0.0.1:5999?password_file=${passwordFile}`;
    const url = `${world.baseUrl}${scriptPaths.installDesktop(desktopToken, { name: 'build', uri })}`;
    const desktops = () => world.app.services.desktops;
    await runInstalledAgent(url, path.join(dir, 'agent'), (output) =>
      expect(desktops().get('build'), output).toMatchObject({ source: 'agent' }),
    );
    expect(desktops().get('build')?.spec).toMatchObject({
      protocol: 'vnc',
      addr: '127.0.0.1:5999',
    });
    expect(JSON.stringify(desktops().get('build'))).not.toContain('secret12');
  });
});
