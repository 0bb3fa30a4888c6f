import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { isMap, isSeq, parseDocument, YAMLMap, type Document } from 'yaml';
import { ConfigError } from '../../../config/config-error.js';

/** One context `postern kube login` writes: its cluster, user and context entries share a name. */
export interface KubeContext {
  name: string;
  server: string;
  tlsServerName: string;
  caFile: string;
  user: KubeUserCredential;
}

/**
 * How kubectl gets its client certificate: from files, or from a credential plugin it runs for
 * each command (client-go's exec plugin: `postern kube credentials`), which may ask for a code.
 */
export type KubeUserCredential =
  { certFile: string; keyFile: string } | { exec: { command: string; args: string[] } };

/** The kubeconfig `user` entry for a credential. */
function userEntry(credential: KubeUserCredential): Record<string, unknown> {
  if ('certFile' in credential) {
    return { 'client-certificate': credential.certFile, 'client-key': credential.keyFile };
  }
  return {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: credential.exec.command,
      args: credential.exec.args,
      // The plugin reads an authenticator code from kubectl's terminal when it has one.
      interactiveMode: 'IfAvailable',
      provideClusterInfo: false,
    },
  };
}

/** The kubeconfig kubectl reads first: `$KUBECONFIG`'s first file, or `~/.kube/config`. */
export function kubeconfigPath(env: NodeJS.ProcessEnv): string {
  const first = env.KUBECONFIG?.split(path.delimiter).find(Boolean);
  return path.resolve(first ?? path.join(env.HOME || homedir(), '.kube', 'config'));
}

/**
 * Adds (or replaces) a context in a kubeconfig file, and makes it current unless told not to;
 * every other entry, and the file's comments and order, stay as they were.
 */
export async function writeKubeContext(
  file: string,
  context: KubeContext,
  makeCurrent = true,
): Promise<void> {
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const parsed = parseDocument(text);
  if (text.trim() && (parsed.errors.length > 0 || !isMap(parsed.contents))) {
    // Never written over: it may hold other clusters' credentials.
    throw new ConfigError(
      `${file} is not a kubeconfig Postern can read: fix it, or set KUBECONFIG`,
    );
  }
  const doc: Document = isMap(parsed.contents)
    ? parsed
    : parseDocument('apiVersion: v1\nkind: Config\n');
  upsert(doc, 'clusters', context.name, {
    cluster: {
      server: context.server,
      'certificate-authority': context.caFile,
      'tls-server-name': context.tlsServerName,
    },
  });
  upsert(doc, 'users', context.name, { user: userEntry(context.user) });
  upsert(doc, 'contexts', context.name, {
    context: { cluster: context.name, user: context.name },
  });
  if (makeCurrent) doc.set('current-context', context.name);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // A kubeconfig names credentials: only its owner reads it, as kubectl wants.
  await writeFile(file, doc.toString(), { mode: 0o600 });
  await chmod(file, 0o600);
}

function upsert(doc: Document, list: string, name: string, entry: Record<string, unknown>): void {
  let items = doc.get(list);
  if (!isSeq(items)) {
    doc.set(list, doc.createNode([]));
    items = doc.get(list);
  }
  if (!isSeq(items)) return;
  const node = doc.createNode({ name, ...entry });
  const at = items.items.findIndex((item) => item instanceof YAMLMap && item.get('name') === name);
  if (at >= 0) items.items[at] = node;
  else items.items.push(node);
}
