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
 * `ws(s)://<host>/v1/webapi/sites/<cluster>/connect/ws?params=<json>&traceparent=<w3c>`. The bearer
 * token is never part of the URL: it travels in the first (text) frame.
 */
export function terminalUrl(
  origin: SocketOrigin,
  clusterId: string,
  params: TerminalParams,
  traceparent: string,
): string {
  const json: TerminalParams = {
    server_id: params.server_id,
    login: params.login,
    term: params.term,
    ...(params.sid ? { sid: params.sid } : {}),
    ...(params.mode ? { mode: params.mode } : {}),
  };
  const query = `params=${encodeURIComponent(JSON.stringify(json))}&traceparent=${encodeURIComponent(traceparent)}`;
  return `${socketScheme(origin.protocol)}://${origin.host}${apiPaths.terminalConnect(clusterId)}?${query}`;
}
