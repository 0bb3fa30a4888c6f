import type { App } from '../app.js';
import type { ListenerContext, RunningListener } from './wing.js';

/**
 * Starts every wing's listeners the configuration turns on, in order, and reports each bound
 * address to `addresses`. Returns them for the shutdown, which stops them in reverse.
 */
export async function startWingListeners(app: App, log: ListenerContext['log']) {
  const ctx = { ...app.context, log };
  const running: RunningListener[] = [];
  for (const { wing, services } of app.wings) {
    for (const listener of wing.listeners ?? []) {
      if (listener.enabled && !listener.enabled(ctx)) continue;
      const started = await listener.start(services, ctx);
      if (started.address) ctx.addresses.report(listener.name, started.address);
      running.push(started);
    }
  }
  return running;
}
