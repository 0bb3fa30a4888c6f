import { vi } from 'vitest';
import type { InventoryService } from './inventory.service.js';
import type { NodeResource } from './nodes.store.js';

/** The node once the inventory's watch has brought it (writes reach the cache asynchronously). */
export function waitForNode(
  inventory: InventoryService,
  id: string,
  timeout = 2000,
): Promise<NodeResource> {
  return vi.waitFor(
    () => {
      const node = inventory.get(id);
      if (!node) throw new Error(`server ${id} has not reached the inventory`);
      return node;
    },
    { timeout },
  );
}
