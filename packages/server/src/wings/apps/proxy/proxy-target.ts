import type { Agent } from 'node:http';
import type { Duplex } from 'node:stream';

/** What the proxy needs to know about one app for one request. */
export interface ProxyTarget {
  /** The app's upstream base URL, e.g. http://127.0.0.1:8080 or https://grafana.internal:3000/base */
  upstream: URL;
  /** Skip certificate checks of an https upstream (the app's insecure_skip_verify). */
  insecureSkipVerify: boolean;
  /** The host name the browser uses for this app (e.g. grafana.proxy.example.com), and the port it sees ('' for 443). */
  publicHost: string;
  publicPort: string;
  /** Where redirects to the app point instead of the public host (location-rewrite.ts). */
  clientOrigin?: string;
  /** Headers the proxy sets on every upstream request (overwriting any the client sent): the signed identity JWT, the app's rewrite headers. */
  setHeaders: Record<string, string>;
  /** Header names (lower-case) that must never reach the app from the client (identity headers); setHeaders are applied after stripping. */
  stripHeaders: readonly string[];
  /**
   * Cookie names removed from the client's Cookie header before it reaches the app: the proxy's
   * own session cookies on the app's host are credentials of ours, not the app's.
   */
  stripCookies?: readonly string[];
  /** Extra host names whose absolute URLs in `Location` are rewritten to the public host (the app's rewrite.redirect). */
  redirectHosts: readonly string[];
  /**
   * Optional: opens the connection to the upstream instead of dialling it (used for apps behind an
   * agent's tunnel). It may return the stream later (a tunnel dial is asynchronous); a rejection is
   * a 502. For an https upstream, TLS runs over the stream it returns. Never pooled.
   */
  connect?: () => Duplex | Promise<Duplex>;
  /**
   * Optional: a keep-alive pool of the caller's for requests (upgrades still use `connect`), whose
   * connections it opens itself: a leaf's app, through tunnels this root opens to the leaf.
   */
  agent?: Agent;
  /**
   * Called once per forwarded request when the response head is sent (or the request failed): for
   * audit. `status` is the app's (101 for a joined upgrade), or the proxy's own answer: 400 for a
   * refused request, 502 when the app could not be reached or answered wrongly, 504 when it did not
   * answer in time, 499 when the client left before any answer.
   */
  onRequestDone?: (info: { method: string; path: string; status: number }) => void;
}
