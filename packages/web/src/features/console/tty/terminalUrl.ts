import { apiPaths, type ParticipantMode } from '@postern/contracts';

/**
 * The terminal socket's `params` (docs/protocol.md §2): a new session names a server and login,
 * a join names `sid` and optionally the mode.
 */
export interface TerminalParams {
  server_id: string;
  login: string;
  term: { w: number; h: number };
  sid?: string;
  mode?: ParticipantMode;
}

/** Where the page came from: `location` in a browser, a configured proxy address elsewhere. */
export interface SocketOrigin {
  /** `https:` or `http:` (a `wss:`/`ws:` value is taken as is). */
  protocol: string;
  /** host[:port] */
  host: string;
}

export function socketScheme(protocol: string): 'wss' | 'ws' {
  return protocol === 'https:' || protocol === 'wss:' ? 'wss' : 'ws';
}

/**
 * `ws(s)://<host><path>?params=<json>&traceparent=<w3c>`: a socket that speaks the terminal
 * protocol (the server terminal's, the SQL console's), its `params` as JSON. The bearer token is
 * never part of the URL: it travels in the first (text) frame.
 */
export function socketUrl(
  origin: SocketOrigin,
  path: string,
  params: object,
  traceparent: string,
): string {
  const query = `params=${encodeURIComponent(JSON.stringify(params))}&traceparent=${encodeURIComponent(traceparent)}`;
  return `${socketScheme(origin.protocol)}://${origin.host}${path}?${query}`;
}

/** `ws(s)://<host>/v1/webapi/sites/<cluster>/connect/ws?params=<json>&traceparent=<w3c>`. */
export function terminalUrl(
  origin: SocketOrigin,
  clusterId: string,
  params: TerminalParams,
  traceparent: string,
): string {
  return socketUrl(
    origin,
    apiPaths.terminalConnect(clusterId),
    terminalParams(params),
    traceparent,
  );
}

/** The server terminal's `params`, without the join fields a new session leaves empty. */
export function terminalParams(params: TerminalParams): TerminalParams {
  return {
    server_id: params.server_id,
    login: params.login,
    term: params.term,
    ...(params.sid ? { sid: params.sid } : {}),
    ...(params.mode ? { mode: params.mode } : {}),
  };
}
