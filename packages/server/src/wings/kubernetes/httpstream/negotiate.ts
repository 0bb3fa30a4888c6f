import type { IncomingMessage } from 'node:http';

/** Whether the request asks for a WebSocket (RFC 6455 section 4.1). */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** Whether the request asks for SPDY/3.1, as Kubernetes' clients do (connection and upgrade). */
export function isSpdyUpgrade(req: IncomingMessage): boolean {
  const connection = (req.headers.connection ?? '').toLowerCase();
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  return connection.includes('upgrade') && upgrade.includes('spdy/3.1');
}

/** Every value of a header that may repeat and may list values with commas. */
export function headerList(req: IncomingMessage, name: string): string[] {
  return (req.headersDistinct[name.toLowerCase()] ?? [])
    .flatMap((line) => line.split(','))
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
}

/** The first protocol the client offered that the server speaks: the client's preference wins. */
export function pickProtocol<T extends string>(
  offered: string[],
  supported: readonly T[],
): T | undefined {
  return offered.find((protocol): protocol is T =>
    (supported as readonly string[]).includes(protocol),
  );
}
