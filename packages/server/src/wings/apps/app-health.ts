import { connect } from 'node:net';
import type { AppsService } from './apps.service.js';

/** How long one check waits for the upstream to accept a connection. */
const connectTimeoutMs = 3_000;

/**
 * The status of the apps this proxy reaches itself (the config file's and `postern create`'s):
 * every interval it opens a TCP connection to each upstream and marks those that accept online
 * for three intervals. Agents report their own apps.
 */
export function checkAppHealth(apps: AppsService, intervalMs: number): () => void {
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      const direct = apps.rows().filter((row) => row.resource.source !== 'agent');
      await Promise.all(
        direct.map(async ({ resource }) => {
          if (await accepts(new URL(resource.spec.uri))) {
            await apps.inventory.markOnline(resource.metadata.name, intervalMs * 3);
          }
        }),
      );
    } catch {
      // A storage hiccup: the next round tries again.
    } finally {
      running = false;
    }
  };
  void round();
  const timer = setInterval(() => void round(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

function accepts(uri: URL): Promise<boolean> {
  const port = Number(uri.port) || (uri.protocol === 'https:' ? 443 : 80);
  const host = uri.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(connectTimeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
