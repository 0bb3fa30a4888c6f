// A second OS process for the cross-process watch tests. It runs the real backend code (the
// TypeScript sources, through ts-hooks.mjs): opens its own backend on the shared storage,
// watches, reports "ready", performs its share of writes, and reports every event it saw.
// Usage: node watch-child.mjs '{"config": {...}, "watchPrefix": "/x/", "writePrefix": "/x/child/",
//                               "writes": 10, "expectEvents": 50}'
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
const { openBackend } = await import('../index.ts');
const { runWritePlan } = await import('./write-plan.testkit.ts');
const { config, watchPrefix, writePrefix, writes, expectEvents } = JSON.parse(
  process.argv[2] ?? '{}',
);

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const giveUp = setTimeout(() => {
  send({ type: 'error', message: `timed out waiting for ${expectEvents} events` });
  process.exit(1);
}, 15_000);

const backend = await openBackend(config);
const watcher = backend.watch([watchPrefix]);
await watcher.ready;
send({ type: 'ready' });

const seen = [];
const watching = (async () => {
  for await (const event of watcher.events) {
    seen.push(
      event.type === 'put'
        ? { type: 'put', key: event.item.key, revision: event.item.revision }
        : event,
    );
    if (seen.length === expectEvents) break;
  }
})();
const revisions = await runWritePlan(backend, writePrefix, writes);
await watching;
send({ type: 'done', seen, revisions });
clearTimeout(giveUp);
await backend.close();
