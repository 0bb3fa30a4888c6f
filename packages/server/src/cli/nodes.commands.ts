import { ConfigError } from '../config/config.js';
import { hostActor } from '../access-control/access/actor.js';
import { InventoryService } from '../wings/servers/nodes/inventory.service.js';
import { labelNamePattern } from '../wings/servers/nodes/node-records.js';
import { ClusterCa } from '../ssh/ca.service.js';
import type { AdminContext } from './admin-context.js';
import { printTable, type Print } from './table.js';
import { cliActor, list } from './users.commands.js';

/** `--labels env=prod,team=web` as a label map; a malformed pair stops the command. */
export function parseLabels(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of list(text)) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    if (at < 1 || !labelNamePattern.test(name)) {
      throw new ConfigError(
        `--labels: expected name=value pairs separated by commas, got '${pair}'`,
      );
    }
    labels[name] = pair.slice(at + 1).trim();
  }
  return labels;
}

/** The inventory, loaded from storage for one command: commands are short, so no cache to keep. */
async function withInventory<T>(
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

/** `postern nodes add --name N --addr host:22 [--labels k=v,...]`: an agentless OpenSSH host. */
export async function nodesAdd(
  ctx: AdminContext,
  options: { name: string; addr: string; labels?: string },
  print: Print,
): Promise<string> {
  const labels = parseLabels(options.labels);
  const node = await withInventory(ctx, (inventory) =>
    inventory.addOpenSsh({ name: options.name, addr: options.addr, labels }, hostActor(cliActor())),
  );
  const ca = await ClusterCa.loadOrCreate(ctx.backend, ctx.config.clusterName);
  print(`Added server ${node.spec.hostname} (${node.metadata.name}) at ${node.spec.addr}.`);
  print(
    'Its host key is pinned the first time the proxy connects; a different key later is refused.',
  );
  print('On that host, make sshd trust the cluster user CA: save this line as');
  print('/etc/ssh/postern_user_ca.pub, add "TrustedUserCAKeys /etc/ssh/postern_user_ca.pub" to');
  print('sshd_config and reload sshd:');
  print(ca.trustedUserCaKeysLine());
  return node.metadata.name;
}

/** `postern nodes ls`: every server with its kind, status and labels. */
export async function nodesList(ctx: AdminContext, print: Print): Promise<void> {
  const rows = await withInventory(ctx, async (inventory) => inventory.rows());
  if (rows.length === 0) {
    print('No servers.');
    return;
  }
  rows.sort(
    (a, b) =>
      a.node.spec.hostname.localeCompare(b.node.spec.hostname) ||
      a.node.metadata.name.localeCompare(b.node.metadata.name),
  );
  printTable(
    ['ID', 'HOSTNAME', 'ADDRESS', 'KIND', 'STATUS', 'LABELS'],
    rows.map(({ node, status, labels }) => [
      node.metadata.name,
      node.spec.hostname,
      node.spec.tunnel ? '(tunnel)' : node.spec.addr,
      node.spec.subKind === 'openssh' ? 'openssh' : node.spec.tunnel ? 'agent' : 'postern',
      status,
      Object.entries(labels)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, value]) => `${name}=${value}`)
        .join(','),
    ]),
    print,
  );
}

/** `postern nodes rm <name-or-id>`. */
export async function nodesRemove(
  ctx: AdminContext,
  nameOrId: string,
  print: Print,
): Promise<void> {
  const node = await withInventory(ctx, (inventory) =>
    inventory.remove(nameOrId, hostActor(cliActor())),
  );
  print(`Removed server ${node.spec.hostname} (${node.metadata.name}).`);
}
