import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalNode } from '../local-node.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { startSshd } from '../../../testing/sshd.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { attachment } from './file-transfer.routes.js';

const MiB = 1024 * 1024;
const maxBytes = 8 * MiB;
const admin = hostActor('test');

let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let local: Awaited<ReturnType<typeof startLocalNode>>;
let nodeDataDir: string;
let dir: string;
let sshdNode: string;
let alice: Record<string, string>;
let olga: Record<string, string>;
let baseUrl: string;

const role = (name: string, allow: object) =>
  app.services.roles.create(
    JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
    admin,
  );

beforeAll(async () => {
  app = await createTestApp({ fileTransferMaxBytes: maxBytes });
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const node = await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    admin,
  );
  sshdNode = node.metadata.name;
  nodeDataDir = await mkdtemp(path.join(tmpdir(), 'postern-node-'));
  local = await startLocalNode({
    config: { enabled: true, listenAddr: { host: '127.0.0.1', port: 0 }, labels: {}, commands: [] },
    dataDir: nodeDataDir,
    ca: app.services.ca,
    inventory: app.services.inventory,
    locks: app.services.lockWatcher,
    log: () => undefined,
  });
  dir = await mkdtemp(path.join(tmpdir(), 'postern-xfer-'));
  await role('root-access', { node_labels: { '*': '*' }, logins: ['root'] });
  await role('outsider', { node_labels: { env: 'prod' }, logins: ['root'] });
  alice = await app.signIn(['root-access'], 'alice');
  olga = await app.signIn(['outsider'], 'olga');
}, 60_000);

afterAll(async () => {
  await local?.stop();
  await sshd?.stop();
  await app?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(nodeDataDir, { recursive: true, force: true });
});

const url = (server: string, query: Record<string, string>, login = 'root') =>
  `${apiPaths.fileTransfer('-current-', server, login)}?${new URLSearchParams(query)}`;

/** A multipart/form-data body holding one file, as a browser's FormData sends it. */
function form(filename: string, data: Buffer) {
  const boundary = `----postern${randomBytes(8).toString('hex')}`;
  const head =
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\n` +
    'content-type: application/octet-stream\r\n\r\n';
  return {
    payload: Buffer.concat([Buffer.from(head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const upload = (
  server: string,
  query: Record<string, string>,
  file: { name: string; data: Buffer },
  headers = alice,
) => {
  const body = form(file.name, file.data);
  return app.server.inject({
    method: 'POST',
    url: url(server, query),
    headers: { ...headers, ...body.headers },
    payload: body.payload,
  });
};

const download = (server: string, query: Record<string, string>, headers = alice) =>
  app.server.inject({ url: url(server, query), headers });

async function waitFor(check: () => Promise<boolean>, ms = 10_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const events = async () =>
  (await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 1000 }))
    .events;

describe.each([
  ['an OpenSSH host', () => sshdNode, 'sshd-host'],
  ['the built-in node service', () => local.id, undefined],
])('file transfer with %s', (_kind, server, hostname) => {
  it('uploads and downloads a multi-MiB file byte for byte, and audits both', async () => {
    const data = randomBytes(5 * MiB + 123);
    const name = `round-trip-${randomBytes(4).toString('hex')}.bin`;
    const up = await upload(server(), { location: dir }, { name, data });
    expect(up.statusCode, up.body).toBe(200);
    const target = path.join(dir, name);
    expect(up.json()).toEqual({ path: target, bytes: data.length });
    expect((await readFile(target)).equals(data)).toBe(true);

    const down = await download(server(), { location: target, filename: 'copy.bin' });
    expect(down.statusCode).toBe(200);
    expect(down.headers['content-length']).toBe(String(data.length));
    expect(down.headers['content-disposition']).toBe(
      `attachment; filename="copy.bin"; filename*=UTF-8''copy.bin`,
    );
    expect(down.rawPayload.equals(data)).toBe(true);

    const audited = (await events()).filter((e) => e.path === target);
    const common = {
      user: 'alice',
      login: 'root',
      server_id: server(),
      ...(hostname ? { server_hostname: hostname } : {}),
      bytes: data.length,
    };
    expect(audited).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ...common, code: 'T3005I', event: 'scp', action: 'upload' }),
        expect.objectContaining({ ...common, code: 'T3004I', event: 'scp', action: 'download' }),
      ]),
    );
  });

  it('resolves ~ and relative locations from the login home directory', async () => {
    const name = `relative-${randomBytes(4).toString('hex')}.txt`;
    try {
      const up = await upload(
        server(),
        { location: '~', filename: name },
        { name: 'ignored.txt', data: Buffer.from('home sweet home') },
      );
      expect(up.json()).toEqual({ path: `/root/${name}`, bytes: 15 });
      const down = await download(server(), { location: name });
      expect(down.body).toBe('home sweet home');
      expect(down.headers['content-disposition']).toContain(`filename="${name}"`);
    } finally {
      await rm(path.join('/root', name), { force: true });
    }
  });

  it('overwrites a file in place, keeping its permissions', async () => {
    const target = path.join(dir, `existing-${randomBytes(4).toString('hex')}`);
    await writeFile(target, 'old contents that are longer');
    await chmod(target, 0o640);
    const up = await upload(
      server(),
      { location: target },
      { name: 'x', data: Buffer.from('new') },
    );
    expect(up.statusCode).toBe(200);
    expect(await readFile(target, 'utf8')).toBe('new');
    expect((await stat(target)).mode & 0o777).toBe(0o640);
  });

  it('refuses a file over file_transfer.max_bytes and leaves nothing on the node', async () => {
    const before = await readdir(dir);
    const name = `too-big-${randomBytes(4).toString('hex')}.bin`;
    // Just over: the multipart body is within the up-front check, so the stream is cut.
    const streamed = await upload(
      server(),
      { location: dir },
      { name, data: randomBytes(maxBytes + 1) },
    );
    expect(streamed.statusCode).toBe(413);
    expect(streamed.json().error).toEqual({
      code: 'too_large',
      message: `the file is larger than the limit of ${maxBytes} bytes`,
    });
    // Far over: refused from the content-length, before the node is dialled.
    const declared = await upload(
      server(),
      { location: dir },
      { name, data: randomBytes(maxBytes * 2) },
    );
    expect(declared.statusCode).toBe(413);
    expect(await readdir(dir)).toEqual(before);
    const failed = (await events()).filter((e) => e.code === 'T3005E' && e.server_id === server());
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed[0]).toMatchObject({ error: expect.stringContaining('larger than the limit') });

    const big = path.join(dir, `${name}.local`);
    await writeFile(big, Buffer.alloc(maxBytes + 1));
    const down = await download(server(), { location: big });
    expect(down.statusCode).toBe(413);
    await rm(big);
  });

  it('leaves nothing behind when the browser goes away mid-upload', async () => {
    const before = await readdir(dir);
    const body = form('abandoned.bin', randomBytes(4 * MiB));
    const { request } = await import('node:http');
    const req = request(`${baseUrl}${url(server(), { location: dir })}`, {
      method: 'POST',
      headers: { ...alice, ...body.headers, 'content-length': String(body.payload.length) },
    });
    req.on('error', () => undefined);
    req.write(body.payload.subarray(0, 2 * MiB));
    // Once the node has bytes of it, the browser tab closes.
    await waitFor(async () => (await readdir(dir)).some((f) => f.startsWith('.postern-upload-')));
    req.destroy();
    await waitFor(async () =>
      (await events()).some(
        (e) => e.code === 'T3005E' && e.path === path.join(dir, 'abandoned.bin'),
      ),
    );
    await waitFor(async () => (await readdir(dir)).length === before.length);
    expect(await readdir(dir)).toEqual(before);
  });

  it('a lock on the user cuts off an upload under way, says so, and leaves nothing behind', async () => {
    const before = await readdir(dir);
    const body = form('locked.bin', randomBytes(4 * MiB));
    const { request } = await import('node:http');
    const req = request(`${baseUrl}${url(server(), { location: dir })}`, {
      method: 'POST',
      headers: { ...alice, ...body.headers, 'content-length': String(body.payload.length) },
    });
    req.on('error', () => undefined);
    const answered = new Promise<{ status: number; body: string }>((resolve) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      });
    });
    // Half of it sent, and the rest held back: the transfer waits on the browser.
    req.write(body.payload.subarray(0, 2 * MiB));
    await waitFor(async () => (await readdir(dir)).some((f) => f.startsWith('.postern-upload-')));
    const lock = await app.services.locks.create(
      { targets: { user: 'alice' }, message: 'incident 12' },
      admin,
    );
    try {
      const answer = await answered;
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).error.message).toBe('locked: incident 12');
      const failed = (await events()).find(
        (e) => e.code === 'T3005E' && e.path === path.join(dir, 'locked.bin'),
      );
      expect(failed?.error).toBe('locked: incident 12');
      await waitFor(async () => (await readdir(dir)).length === before.length);
      expect(await readdir(dir)).toEqual(before);
    } finally {
      req.destroy();
      await app.services.locks.remove(lock.metadata.name, admin);
    }
  });

  it('sends exactly the size it announced, even for files that say 0 and read more', async () => {
    const res = await download(server(), { location: '/proc/version' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect(res.body).toBe('');
  });

  it('answers 404 for a missing file and 400 for a directory', async () => {
    const missing = await download(server(), { location: path.join(dir, 'nope') });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe(
      `${path.join(dir, 'nope')}: no such file or directory`,
    );
    const directory = await download(server(), { location: dir });
    expect(directory.statusCode).toBe(400);
    expect(directory.json().error.message).toBe(`${dir} is not a regular file`);
    const audited = (await events()).find(
      (e) => e.code === 'T3004E' && e.path === path.join(dir, 'nope'),
    );
    expect(audited).toMatchObject({ user: 'alice', action: 'download', error: expect.any(String) });
  });
});

describe('file transfer refusals', () => {
  it('answers 401 without a session', async () => {
    const res = await download(sshdNode, { location: '/etc/hostname' }, {});
    expect(res.statusCode).toBe(401);
  });

  it('answers 403 for a login the roles do not allow, and audits it', async () => {
    const res = await app.server.inject({
      url: url(sshdNode, { location: '/etc/hostname' }, 'nobody'),
      headers: alice,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe(
      'access denied: login "nobody" is not allowed on sshd-host',
    );
    const audited = (await events()).find((e) => e.code === 'T3004E' && e.login === 'nobody');
    expect(audited).toMatchObject({ user: 'alice', server_hostname: 'sshd-host' });
  });

  it('answers 404 for an unknown server and for one the roles hide', async () => {
    const unknown = await download('no-such-host', { location: '/etc/hostname' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toBe('server "no-such-host" is not found');
    const hidden = await download(sshdNode, { location: '/etc/hostname' }, olga);
    expect(hidden.statusCode).toBe(404);
  });

  it('answers 403 while the node or the user is locked', async () => {
    const lock = await app.services.locks.create(
      { targets: { node: sshdNode }, message: 'maintenance' },
      admin,
    );
    try {
      const res = await upload(sshdNode, { location: dir }, { name: 'x', data: Buffer.from('x') });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('locked: maintenance');
    } finally {
      await app.services.locks.remove(lock.metadata.name, admin);
    }
    const userLock = await app.services.locks.create({ targets: { user: 'alice' } }, admin);
    try {
      expect((await download(sshdNode, { location: '/etc/hostname' })).statusCode).toBe(403);
    } finally {
      await app.services.locks.remove(userLock.metadata.name, admin);
    }
  });

  it('answers 400 for bad input', async () => {
    const bad = async (query: Record<string, string>) => {
      const res = await download(sshdNode, query);
      expect(res.statusCode).toBe(400);
      return res.json().error.message as string;
    };
    expect(await bad({})).toMatch(/^location: /);
    expect(await bad({ location: '  ' })).toBe('location: location is required');
    expect(await bad({ location: '/tmp/a\0b' })).toBe('location: location must not hold NUL bytes');
    expect(await bad({ location: '/etc/hostname', filename: '../x' })).toBe(
      'filename: filename must not hold "/"',
    );
    expect(await bad({ location: '/etc/hostname', filename: '..' })).toBe(
      'filename: filename must not be "." or ".."',
    );
    const upDir = await upload(
      sshdNode,
      { location: dir, filename: '..' },
      {
        name: 'x',
        data: Buffer.from('x'),
      },
    );
    expect(upDir.statusCode).toBe(400);
  });

  it('answers 400 for a malformed multipart body', async () => {
    const res = await app.server.inject({
      method: 'POST',
      url: url(sshdNode, { location: dir }),
      headers: { ...alice, 'content-type': 'multipart/form-data; boundary=xyz' },
      payload:
        '--xyz\r\ncontent-disposition: form-data; name="file"; filename="a"\r\n\r\nunterminated',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(
      'the upload did not complete: Unexpected end of multipart data',
    );
  });

  it('refuses a body that is not form data with the spec message', async () => {
    for (const [type, payload] of [
      ['application/json', '{"a":1}'],
      ['application/octet-stream', 'bytes'],
      ['text/plain', 'text'],
    ]) {
      const res = await app.server.inject({
        method: 'POST',
        url: url(sshdNode, { location: dir }),
        headers: { ...alice, 'content-type': type as string },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toBe('data for body is not a type of FormData');
    }
    const empty = await app.server.inject({
      method: 'POST',
      url: url(sshdNode, { location: dir }),
      headers: alice,
    });
    expect(empty.json().error.message).toBe('data for body is not a type of FormData');
  });
});

describe('a download the browser abandons', () => {
  it('is audited as cancelled, with the bytes sent so far', async () => {
    const big = path.join(dir, 'abandoned-download.bin');
    await writeFile(big, randomBytes(maxBytes - 1));
    const { get } = await import('node:http');
    await new Promise<void>((resolve, reject) => {
      const req = get(
        `${baseUrl}${url(sshdNode, { location: big })}`,
        { headers: alice },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', reject);
    });
    await waitFor(async () => (await events()).some((e) => e.code === 'T3004E' && e.path === big));
    const event = (await events()).find((e) => e.code === 'T3004E' && e.path === big);
    expect(event).toMatchObject({ error: 'the download was cancelled', action: 'download' });
    expect(event?.bytes).toBeLessThan(maxBytes - 1);
    await rm(big);
  });
});

describe('attachment', () => {
  it('gives an ASCII fallback and the exact UTF-8 name', () => {
    expect(attachment('résumé "final".pdf')).toBe(
      `attachment; filename="r_sum_ _final_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf`,
    );
  });
});
