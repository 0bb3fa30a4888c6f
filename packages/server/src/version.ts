import { readFileSync } from 'node:fs';

/** The server's version, from its package.json, so releases need one edit only. */
function readVersion(): string {
  const url = new URL('../package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(url, 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

export const serverVersion = readVersion();
