import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { connect } from 'node:tls';
import { expect, test } from '@playwright/test';
import { posternBin, startPostern } from './support/postern-process.js';

const postern = (...args: string[]) =>
  spawnSync(process.execPath, [posternBin, ...args], { encoding: 'utf8' });

/** The certificate a TLS server presents, without trusting it. */
function peerCertificate(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false },
      () => {
        resolve(new X509Certificate(socket.getPeerX509Certificate()!.raw));
        socket.end();
      },
    );
    socket.once('error', reject);
  });
}

test.describe('the postern binary', () => {
  test('--help lists every command and start lists its flags', () => {
    const help = postern('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/start \[options\]\s+run the proxy/);
    const startHelp = postern('start', '--help');
    for (const flag of [
      '--config',
      '--data-dir',
      '--web-addr',
      '--ssh-addr',
      '--public-addr',
      '--cluster-name',
      '--insecure-no-tls',
      '--log-format',
    ]) {
      expect(startHelp.stdout).toContain(flag);
    }
  });

  test('a bad flag or config fails fast with a one-line reason and exit code 2', () => {
    const result = postern('start', '--web-addr', 'nonsense', '--data-dir', '/tmp/postern-never');
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      "postern: --web-addr must be HOST:PORT (for example 0.0.0.0:3080), got 'nonsense'",
    );
  });

  test('start serves HTTPS with a self-signed certificate kept in the data dir, logs JSON and stops on SIGTERM', async () => {
    // Alone this takes about a second. It used to hang now and then: the "serving" line came
    // before start-up had finished, a SIGTERM right after it killed the process before its
    // handler was in place, and stop() then waited for an exit that had already happened.
    test.setTimeout(90_000);
    const server = await startPostern();
    try {
      const port = Number(new URL(server.url).port);
      const served = await peerCertificate(port);
      const stored = new X509Certificate(
        readFileSync(path.join(server.dataDir, 'tls', 'self-signed.crt')),
      );
      expect(served.fingerprint256).toBe(stored.fingerprint256);
      expect(served.subjectAltName).toContain('DNS:localhost');

      expect(server.logs.length).toBeGreaterThan(0);
      for (const entry of server.logs) {
        expect(entry).toMatchObject({ service: 'postern' });
        expect(typeof entry.level).toBe('number');
        expect(typeof entry.time).toBe('string');
      }

      expect(await server.stop('SIGTERM')).toBe(0);
      const messages = server.logs.map((entry) => entry.msg);
      expect(messages).toContain('shutting down');
      expect(messages).toContain('stopped');
    } finally {
      await server.stop('SIGKILL');
      await rm(server.dataDir, { recursive: true, force: true });
    }
  });
});
