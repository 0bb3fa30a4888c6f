// The FAKE Kubernetes API server of the tests (packages/server/src/testing/fake-kube, TypeScript
// test kits), bundled for the bench with rolldown (Vite's bundler, already installed) into
// bench/.cache, its packages left as imports. It speaks the real wire protocol for pods: see
// docs/kubernetes.md for what that does and does not prove.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './postern.mjs';

export async function loadFakeKube() {
  const { build } = await import('rolldown');
  const outDir = path.join(repoRoot, 'bench/.cache/fake-kube');
  await mkdir(outDir, { recursive: true });
  const file = path.join(outDir, 'fake-kube-apiserver.mjs');
  await build({
    input: path.join(
      repoRoot,
      'packages/server/src/testing/fake-kube/fake-kube-apiserver.testkit.ts',
    ),
    // Packages (ws, node-pty, zod, @postern/contracts) stay imports: only our files are bundled.
    external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
    platform: 'node',
    logLevel: 'silent',
    output: { file, format: 'esm' },
  });
  return import(pathToFileURL(file).href);
}
