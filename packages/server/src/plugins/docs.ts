import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { docsPath } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';

/** The repository's `docs/` folder, from src/plugins or dist/plugins alike. */
export const defaultDocsDir = fileURLToPath(new URL('../../../../docs', import.meta.url));

/**
 * Postern's own documentation, for Help & Support: `GET /docs/<file>.md` answers a Markdown file
 * of the `docs/` folder as plain text. Public, like the repository it comes from: the files hold
 * nothing of this cluster, and a link the browser follows carries no bearer (the API refuses the
 * cookie alone). Only the names listed at start are served, compared as whole strings, so no
 * request names a path: `..`, slashes and subfolders never reach the file system.
 */
export async function docsRoutes(app: FastifyInstance, options: { dir: string }): Promise<void> {
  const files = listMarkdown(options.dir);
  app.get<{ Params: { file: string } }>(
    `${docsPath}/:file`,
    { config: { access: 'public' } },
    async (request, reply) => {
      const name = request.params.file;
      if (!files.has(name)) throw notFound('no such document');
      const text = await readFile(path.join(options.dir, name), 'utf8');
      return reply
        .type('text/plain; charset=utf-8')
        .header('Cache-Control', 'public, max-age=3600')
        .send(text);
    },
  );
}

function listMarkdown(dir: string): Set<string> {
  if (!existsSync(dir)) return new Set();
  return new Set(
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && /^[A-Za-z0-9_-]+\.md$/.test(entry.name))
      .map((entry) => entry.name),
  );
}
