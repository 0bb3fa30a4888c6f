import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';

/** A secret kept in a file of its own (a VNC password): its first line, which must not be empty. */
export function readSecretFile(file: string, field: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${field}: cannot read ${file}: ${(error as Error).message}`);
  }
  const secret = text.split(/\r?\n/)[0] ?? '';
  if (!secret) throw new ConfigError(`${field}: ${file} is empty`);
  return secret;
}
