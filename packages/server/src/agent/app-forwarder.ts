import { connect } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';

/** An app this agent serves: its name and where it listens on the agent's network. */
export interface AgentApp {
  name: string;
  /** `http://`, `https://` or `tcp://`: the proxy speaks HTTP (and TLS) over what we relay. */
  uri: string;
}

/**
 * One connection the proxy opened to an app through the tunnel: bytes relayed to the app's host
 * and port, nothing read. The proxy speaks the app's protocol end to end (HTTP, TLS to an https
 * app, or a TCP client's bytes), so the agent needs to know only where the app is.
 */
export function forwardToApp(app: AgentApp, stream: Duplex, onError: (error: Error) => void): void {
  const uri = new URL(app.uri);
  const port = Number(uri.port) || (uri.protocol === 'https:' ? 443 : 80);
  forwardTcp({ host: uri.hostname.replace(/^\[|\]$/g, ''), port }, stream, onError);
}

/**
 * Relays one tunnelled connection to `host:port` on the agent's network, reading nothing: apps
 * and databases alike, since the proxy speaks their protocols (and their TLS) end to end.
 */
export function forwardTcp(
  target: { host: string; port: number },
  stream: Duplex,
  onError: (error: Error) => void,
): void {
  const upstream = connect(target);
  upstream.setNoDelay(true);
  let reported = false;
  const done = (error: Error | null | undefined) => {
    if (!error || reported) return;
    reported = true;
    onError(error);
  };
  pipeline(stream, upstream, done);
  pipeline(upstream, stream, done);
}

/** A database this agent serves (`--db name=postgres://host:port`). */
export interface AgentDatabase {
  name: string;
  protocol: 'postgres' | 'mysql';
  host: string;
  port: number;
  /** PEM of the database server certificate's CA, read from the flag's `sslrootcert` file. */
  caCert?: string;
  tlsMode: 'verify-full' | 'verify-ca' | 'insecure';
}
