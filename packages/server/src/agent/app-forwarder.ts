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
  const upstream = connect({ host: uri.hostname.replace(/^\[|\]$/g, ''), port });
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
