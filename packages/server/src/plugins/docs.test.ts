import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { defaultDocsDir, docsRoutes } from './docs.js';
import { installErrorHandler } from './error-handler.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe("Postern's docs at /docs/", () => {
  it("serve the repository's Markdown as plain text to anyone, signed in or not", async () => {
    const res = await app.server.inject('/docs/configuration.md');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toBe(await readFile(path.join(defaultDocsDir, 'configuration.md'), 'utf8'));
  });

  it.each([
    '/docs/..%2Fpackage.json',
    '/docs/..%2F..%2F..%2Fetc%2Fpasswd',
    '/docs/%2e%2e%2fREADME.md',
    '/docs/../README.md',
    '/docs/decisions',
    '/docs/nodes.md%00.txt',
    '/docs/NODES.MD',
    '/docs/',
  ])('answer 404 for %s, never a file outside docs/', async (url) => {
    const res = await app.server.inject(url);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toMatch(/root:|"name"|# Postern/);
  });
});

describe('the docs folder', () => {
  let dir: string;
  let server: ReturnType<typeof Fastify>;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'postern-docs-'));
    await mkdir(path.join(dir, 'docs', 'sub'), { recursive: true });
    await writeFile(path.join(dir, 'docs', 'guide.md'), '# Guide\n');
    await writeFile(path.join(dir, 'docs', 'sub', 'inner.md'), '# Inner\n');
    await writeFile(path.join(dir, 'secret.md'), 'outside\n');
    await symlink(path.join(dir, 'secret.md'), path.join(dir, 'docs', 'link.md'));
    server = Fastify();
    installErrorHandler(server);
    await server.register(docsRoutes, { dir: path.join(dir, 'docs') });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is served one level deep, without following links out of it', async () => {
    expect((await server.inject('/docs/guide.md')).body).toBe('# Guide\n');
    for (const url of ['/docs/link.md', '/docs/sub%2Finner.md', '/docs/..%2Fsecret.md']) {
      const res = await server.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ error: { message: 'no such document' } });
    }
  });
});
