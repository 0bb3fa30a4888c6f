import type { Backend } from '../types.js';

/**
 * A fixed mix of writes (creates, conditional updates, deletes) under `prefix`, used by the
 * cross-process watch tests in both the test process and the child process. Returns the
 * revisions it produced, in order.
 */
export async function runWritePlan(
  backend: Backend,
  prefix: string,
  count: number,
): Promise<string[]> {
  const revisions: string[] = [];
  const items = [];
  for (let i = 0; i < count; i++) {
    const item = await backend.create({ key: `${prefix}${i}`, value: JSON.stringify({ i }) });
    items.push(item);
    revisions.push(item.revision);
  }
  for (const item of items) {
    revisions.push(
      (
        await backend.update(
          { key: item.key, value: JSON.stringify({ updated: true }) },
          item.revision,
        )
      ).revision,
    );
  }
  for (const item of items.slice(0, Math.floor(count / 2))) {
    await backend.delete(item.key);
    revisions.push('delete');
  }
  return revisions;
}

/** How many watch events `runWritePlan(…, count)` causes. */
export const writePlanEventCount = (count: number): number => count * 2 + Math.floor(count / 2);
