import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DeliveryError } from '../failure.js';
import { urlPort, type UrlGuard } from '../url-guard.js';

export interface JsonPost {
  url: string;
  body: string;
  headers?: Record<string, string>;
  guard: UrlGuard;
  /** Aborted when the attempt's time is up. */
  signal: AbortSignal;
}

/**
 * POSTs a JSON body and settles on the receiver's status line. Node's http, not fetch: only it
 * takes the guard's `lookup`, so the address a name resolves to is vetted at connect time.
 * No agent (no kept-alive socket that skips the lookup), no redirects (a 3xx is a failure: a
 * redirect could lead anywhere), and the response body is never read (a receiver that trickles
 * it cannot hold us).
 */
export function postJson({ url, body, headers, guard, signal }: JsonPost): Promise<void> {
  const target = new URL(url);
  const port = urlPort(target);
  guard.checkLiteral(target.hostname, port);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: 'POST',
      agent: false,
      lookup: guard.lookupFor(port),
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Postern-Integrations',
        ...headers,
      },
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.destroy();
      if (status >= 200 && status < 300) return resolve();
      // 4xx other than 408/429 says the request itself is wrong: repeating it will not help.
      const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
      reject(new DeliveryError(`${target.host} answered HTTP ${status}`, permanent));
    });
    req.on('error', reject);
    req.end(body);
  });
}
