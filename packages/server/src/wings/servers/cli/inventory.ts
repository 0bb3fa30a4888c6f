import { InventoryService } from '../nodes/inventory.service.js';
import type { AdminContext } from '../../../cli/admin-context.js';

/** The inventory, loaded from storage for one command: commands are short, so no cache to keep. */
export async function withInventory<T>(
  ctx: AdminContext,
  run: (inventory: InventoryService) => Promise<T>,
) {
  const inventory = new InventoryService(ctx.backend, ctx.audit);
  await inventory.start();
  try {
    return await run(inventory);
  } finally {
    await inventory.close();
  }
}
