import { desktopResourceSchema } from '@postern/contracts';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { AdminContext } from '../../../cli/admin-context.js';
import { addCliKind, type CliKind, type TableView } from '../../../cli/kinds.js';
import { labelsCell } from '../../../cli/table.js';
import { ConfigError } from '../../../config/config.js';
import { asResource } from '../../../modules/inventory/resource-catalog.js';
import { DesktopsService, type DesktopRow } from '../desktops.service.js';

/** The desktops in storage, loaded for one command. */
async function withDesktops<T>(ctx: AdminContext, run: (d: DesktopsService) => Promise<T>) {
  const desktops = new DesktopsService(ctx.backend, ctx.audit, { configured: [] });
  await desktops.inventory.start();
  try {
    return await run(desktops);
  } finally {
    await desktops.close();
  }
}

const columns: TableView<DesktopRow> = {
  header: ['NAME', 'PROTOCOL', 'ADDR', 'OS', 'SOURCE', 'STATUS', 'LABELS'],
  row: ({ resource, status, labels }) => [
    resource.metadata.name,
    resource.spec.protocol,
    resource.spec.addr,
    resource.spec.os,
    resource.source,
    status,
    labelsCell(labels),
  ],
};

/** Never shown: a desktop's passwords stay in storage. */
const withoutSecrets = (row: DesktopRow) => {
  const resource = asResource(row.resource);
  const { vnc_password: vnc, rdp_passwords: rdp, ...spec } = resource.spec;
  return {
    ...resource,
    spec: {
      ...spec,
      ...(vnc ? { vnc_password: '(hidden)' } : {}),
      ...(rdp ? { rdp_passwords: '(hidden)' } : {}),
    },
  };
};

/** `get desktop`, `create -f desktop.yaml`, `rm desktop/NAME`. */
export const desktopCliKind: CliKind<DesktopRow> = {
  kind: 'desktop',
  words: ['desktop', 'desktops', 'windows_desktop', 'windows_desktops'],
  noun: 'desktop',
  title: 'desktop',
  refExample: 'desktop/NAME',
  defaultFormat: 'text',
  list: (ctx) => withDesktops(ctx, async (desktops) => desktops.rows()),
  nameOf: (row) => row.resource.metadata.name,
  text: columns,
  yaml: (row) => stringify(withoutSecrets(row)),
  json: (row) => withoutSecrets(row),
  create: async (ctx, doc, force, actor) => {
    const parsed = desktopResourceSchema.safeParse(doc.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(
        `desktop (line ${doc.firstLine}): ${issue.path.join('.') || 'document'}: ${issue.message}`,
      );
    }
    const { created } = await withDesktops(ctx, (d) => d.create(parsed.data, actor, force));
    return `desktop ${parsed.data.metadata.name} has been ${created ? 'created' : 'overwritten'}`;
  },
  remove: (ctx, name, actor) => withDesktops(ctx, (d) => d.remove(name, actor)),
};

/** The desktops wing's commands: the desktop kind for get, create and rm. */
export function addDesktopCommands(_program: Command): void {
  addCliKind(desktopCliKind);
}
