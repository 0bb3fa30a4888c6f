import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postern } from './identity.js';
import { shared } from './shared-server.js';

/** `postern create -f` on the shared server of one YAML file (several resources separated by `---`). */
export async function createFromYaml(yaml: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-e2e-create-'));
  try {
    await writeFile(path.join(dir, 'resource.yaml'), yaml);
    postern(shared(), 'create', '-f', path.join(dir, 'resource.yaml'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
