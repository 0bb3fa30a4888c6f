import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The test files under `srcUrl` whose source contains `text`, as the `src/…` paths a package's
 * vitest config includes or excludes: how the projects that run some files apart find them
 * (the console's files that `vi.mock`, the server's that bound the process's memory).
 */
export function testFilesContaining(srcUrl: URL, text: string): string[] {
  const srcDir = fileURLToPath(srcUrl);
  return readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .filter((file) => readFileSync(srcDir + file, 'utf8').includes(text))
    .map((file) => `src/${file}`);
}
