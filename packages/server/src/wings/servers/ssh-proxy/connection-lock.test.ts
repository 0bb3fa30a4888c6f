import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { startCliSshWorld, type CliSshWorld } from '../../../testing/cli-ssh-world.testkit.js';

// A stock `ssh -N` through the proxy holds a connection to the server with no session on it (as
// a tunnel or a ControlMaster does). A lock on the server ends it too, saying why, by the server's
// host name as well as by its id: the hub's re-checks judge the connection, not only its sessions.
const admin = hostActor('test');
let world: CliSshWorld;

beforeAll(async () => {
  world = await startCliSshWorld();
  await world.login();
}, 60_000);
afterAll(() => world?.stop());

describe('a connection through the SSH proxy with no session', () => {
  it('ends, saying why, when its server is locked by host name', async () => {
    const config = path.join(world.home, '.ssh', 'config');
    const ssh = spawn('ssh', ['-F', config, '-o', 'BatchMode=yes', '-v', '-N', 'root@web-1']);
    let stderr = '';
    ssh.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => ssh.once('exit', resolve));
    // The inner connection (to the server through the proxy) is the second one authenticated.
    await vi.waitFor(() => expect(stderr.match(/Authenticated to/g)?.length).toBe(2), {
      timeout: 15_000,
    });
    const lock = await world.app.services.locks.create(
      { targets: { node: 'web-1' }, message: 'maintenance' },
      admin,
    );
    const started = Date.now();
    try {
      await exited;
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(stderr).toContain('Postern: locked: maintenance');
    } finally {
      ssh.kill();
      await world.app.services.locks.remove(lock.metadata.name, admin);
    }
  });
});
