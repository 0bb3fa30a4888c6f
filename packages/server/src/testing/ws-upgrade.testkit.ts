import WebSocket from 'ws';

/** A WebSocket upgrade's outcome: the open socket, or the refusal's status and body. */
export type UpgradeOutcome = { socket: WebSocket } | { status: number; body: string };

/** Opens a WebSocket to `url` with `headers`; resolves open or refused, never rejects. */
export function openUpgrade(url: string, headers: Record<string, string>): Promise<UpgradeOutcome> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.once('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    socket.once('error', () => undefined);
  });
}

/** The same, closing an opened socket at once: `'open'`, or the refusal's status and body. */
export async function upgradeStatus(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number | 'open'; body: string }> {
  const outcome = await openUpgrade(url, headers);
  if (!('socket' in outcome)) return outcome;
  outcome.socket.close();
  return { status: 'open', body: '' };
}
