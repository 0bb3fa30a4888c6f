import { labelNamePattern } from '@postern/contracts';
import { ConfigError } from '../../../config/config.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { ClusterCa } from '../../../ssh/ca.service.js';
import type { AdminContext } from '../../../cli/admin-context.js';
import { withInventory } from './inventory.js';
import { listKind } from '../../../cli/kinds.js';
import { nodeKind } from './node-kind.js';
import type { Print } from '../../../cli/table.js';
import { cliActor, list } from '../../../cli/users.commands.js';

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

/** `postern nodes ls`: every server with its kind, status and labels (the kinds table's view). */
export const nodesList = (ctx: AdminContext, print: Print) =>
  listKind(ctx, nodeKind, hostActor(cliActor()), print);

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
