import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { generateEd25519Key, publicKeyFromPrivatePem } from '../ssh/keys.js';

/**
 * What an agent keeps in its data dir: its host key, made on the first run and never sent
 * anywhere, and the identity the join gave it. With both, later runs need no token.
 */
export const hostKeyFile = 'host_key';
export const identityFile = 'identity.json';

export const agentIdentitySchema = z.object({
  nodeId: z.string().min(1),
  /** OpenSSH host certificate line for the host key, signed by the cluster host CA. */
  hostCertificate: z.string().min(1),
  /** Lines of the user CAs whose certificates the node service accepts. */
  userCaKeys: z.array(z.string()).min(1),
  hostCaKeys: z.array(z.string()),
  clusterName: z.string(),
  /** The proxy it joined through (for the operator: `--proxy` decides where it connects). */
  proxy: z.string(),
});
export type AgentIdentity = z.infer<typeof agentIdentitySchema>;

export interface HostKey {
  privateKeyPem: string;
  /** OpenSSH line. */
  publicKey: string;
}

/** Creates the data dir, or tightens an existing one: it holds a private key. */
export async function openDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
}

/** The host key, made on first use. `wx` never overwrites a key another run just wrote. */
export async function loadOrCreateHostKey(dataDir: string): Promise<HostKey> {
  const file = path.join(dataDir, hostKeyFile);
  const existing = await readIfExists(file);
  if (existing !== undefined) {
    try {
      return { privateKeyPem: existing, publicKey: publicKeyFromPrivatePem(existing) };
    } catch (error) {
      throw new Error(`${file} is not a usable host key: ${(error as Error).message}`);
    }
  }
  const key = generateEd25519Key();
  try {
    await writeFile(file, key.privateKeyPem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another run on the same dir got there first: use its key.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateHostKey(dataDir);
    throw error;
  }
  return key;
}

export async function readIdentity(dataDir: string): Promise<AgentIdentity | undefined> {
  const file = path.join(dataDir, identityFile);
  const text = await readIfExists(file);
  if (text === undefined) return undefined;
  let parsed;
  try {
    parsed = agentIdentitySchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw new Error(`${file} is damaged: remove it and join again with a new token`);
  }
  return parsed.data;
}

/** Written to a temporary file then renamed, so a crash never leaves half an identity. */
export async function writeIdentity(dataDir: string, identity: AgentIdentity): Promise<void> {
  const file = path.join(dataDir, identityFile);
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
