import type { IncomingMessage } from 'node:http';
import { kubeStatus, type KubeStatus } from '../upstream/kube-status.js';

/** The most of a create's body read to find its name: the API server's own limit (3 MiB). */
export const maxCreatedObjectBytes = 3 * 1024 * 1024;

/** What a create's body gave: the bytes to send on and the object's name, or a refusal. */
export type CreatedObject = { body: Buffer; name: string } | { refused: KubeStatus };

/**
 * Reads the body of a create whose roles allow some names only, for the name of the object it
 * makes. The bytes are kept whole and sent on as they came. Refused: a body over the API
 * server's limit, one that is not JSON (kubectl sends JSON; protobuf and YAML are not read
 * here), JSON without `metadata.name` (a `generateName` is only named by the cluster, after
 * the check would have to be made), or an object for another namespace than the path's.
 */
export function readCreatedObject(
  req: IncomingMessage,
  namespace: string,
  limit = maxCreatedObjectBytes,
): Promise<CreatedObject> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const settle = (outcome: CreatedObject) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        req.pause();
        return settle({
          refused: kubeStatus(413, `the object is larger than ${limit} bytes`),
        });
      }
      chunks.push(chunk);
    });
    req.once('error', () => settle({ refused: kubeStatus(400, 'the request body broke off') }));
    req.once('end', () =>
      settle(nameOf(req.headers['content-type'], Buffer.concat(chunks), namespace)),
    );
  });
}

function nameOf(contentType: string | undefined, body: Buffer, namespace: string): CreatedObject {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return {
      refused: kubeStatus(
        415,
        `your roles allow this create for some names only, and Postern reads the name from a JSON body; send the object as application/json (got ${mediaType || 'no content type'})`,
      ),
    };
  }
  let object: unknown;
  try {
    object = JSON.parse(body.toString('utf8'));
  } catch {
    return { refused: kubeStatus(400, 'the object is not valid JSON') };
  }
  const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } } | null)
    ?.metadata;
  const name = metadata?.name;
  if (typeof name !== 'string' || name === '') {
    return {
      refused: kubeStatus(
        403,
        'your roles allow this create for some names only: give the object a metadata.name (a generateName is chosen by the cluster, after Postern must judge it)',
      ),
    };
  }
  const claimed = metadata?.namespace;
  if (claimed !== undefined && claimed !== namespace) {
    return {
      refused: kubeStatus(
        400,
        `the object's namespace "${String(claimed)}" is not the request's "${namespace}"`,
      ),
    };
  }
  return { body, name };
}
