import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { BackendConfig } from '../index.js';
import type { Backend } from '../types.js';
import { EventReader } from './event-reader.testkit.js';
import { runWritePlan, writePlanEventCount } from './write-plan.testkit.js';

const childScript = fileURLToPath(new URL('./watch-child.mjs', import.meta.url));

type ChildMessage =
  | { type: 'ready' }
  | { type: 'error'; message: string }
  | { type: 'done'; seen: SeenEvent[]; revisions: string[] };
type SeenEvent = { type: 'put' | 'delete'; key: string; revision: string };

/**
 * Two OS processes share one store: this one and a child running watch-child.mjs. Both
 * watch the same prefix, then both write at the same time. Each must see every write of
 * both processes, and the two must see the very same sequence (same events, same order).
 */
export async function expectSameEventsAcrossProcesses(
  config: BackendConfig,
  parent: Backend,
): Promise<void> {
  const writes = 12;
  const total = 2 * writePlanEventCount(writes);
  const watcher = parent.watch(['/xproc/']);
  await watcher.ready;
  const reader = new EventReader(watcher);

  const child = spawn(
    process.execPath,
    [
      childScript,
      JSON.stringify({
        config,
        watchPrefix: '/xproc/',
        writePrefix: '/xproc/child/',
        writes,
        expectEvents: total,
      }),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    const messages = childMessages(child);
    expect((await messages.next(20_000)).type).toBe('ready');

    const [parentRevisions, events] = await Promise.all([
      runWritePlan(parent, '/xproc/parent/', writes),
      reader.take(total, 15_000),
    ]);
    const done = await messages.next(15_000);
    if (done.type !== 'done') throw new Error(`child process failed: ${JSON.stringify(done)}`);

    const seen: SeenEvent[] = events.map((event) =>
      event.type === 'put'
        ? { type: 'put', key: event.item.key, revision: event.item.revision }
        : event,
    );
    expect(seen).toEqual(done.seen);
    const revisions = seen.map((event) => BigInt(event.revision));
    revisions
      .slice(1)
      .forEach((revision, i) => expect(revision).toBeGreaterThan(revisions[i] as bigint));
    // Both processes' writes are really there, interleaved in one order.
    const seenRevisions = new Set(seen.map((event) => event.revision));
    for (const revision of [...parentRevisions, ...done.revisions].filter((r) => r !== 'delete')) {
      expect(seenRevisions.has(revision)).toBe(true);
    }
    expect(seen.filter((event) => event.key.startsWith('/xproc/child/'))).toHaveLength(total / 2);
  } finally {
    watcher.close();
    if (child.exitCode === null) child.kill();
  }
}

/** The child's JSON lines, one at a time; stderr is kept for the failure message. */
function childMessages(child: ChildProcess) {
  const queue: ChildMessage[] = [];
  const waiters: ((message: ChildMessage) => void)[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deliver = (message: ChildMessage) => {
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  };
  createInterface({ input: child.stdout! }).on('line', (line) =>
    deliver(JSON.parse(line) as ChildMessage),
  );
  child.on('exit', (code) => {
    if (code !== 0) deliver({ type: 'error', message: `exited with ${String(code)}: ${stderr}` });
  });
  return {
    next(timeoutMs: number): Promise<ChildMessage> {
      const queued = queue.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no message from the child process; stderr: ${stderr}`)),
          timeoutMs,
        );
        waiters.push((message) => {
          clearTimeout(timer);
          resolve(message);
        });
      });
    },
  };
}
