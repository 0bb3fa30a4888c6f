import { ApiError } from '../../../errors.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { InventoryService } from '../nodes/inventory.service.js';
import type { DialableNode } from './node-dialer.js';

/** The terminal's view of the inventory: a server by id, hostname or address, if visible. */
export function inventoryDirectory(inventory: InventoryService) {
  return {
    resolve(serverId: string, roleSet: RoleSet): DialableNode | undefined {
      let node;
      try {
        node = inventory.resolve(serverId, roleSet);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return undefined;
        throw error;
      }
      const row = inventory.row(node);
      return {
        id: node.metadata.name,
        hostname: node.spec.hostname,
        addr: node.spec.addr,
        subKind: node.spec.subKind,
        tunnel: node.spec.tunnel,
        labels: row.labels,
        hostPublicKey: node.spec.hostPublicKey,
        // An agentless host is checked only every openssh_check_interval: one that came back
        // since is dialled rather than refused, and one that is down fails the dial clearly.
        online: row.status === 'online' || node.spec.subKind === 'openssh',
      };
    },
  };
}
