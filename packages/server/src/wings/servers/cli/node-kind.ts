import type { CliKind, TableView } from '../../../cli/kinds.js';
import { labelsCell } from '../../../cli/table.js';
import type { NodeRow } from '../nodes/node-list.js';
import { withInventory } from './inventory.js';

const nodeKindColumns: TableView<NodeRow> = {
  header: ['ID', 'HOSTNAME', 'ADDRESS', 'KIND', 'STATUS', 'LABELS'],
  row: ({ node, status, labels }) => [
    node.metadata.name,
    node.spec.hostname,
    node.spec.tunnel ? '(tunnel)' : node.spec.addr,
    node.spec.subKind === 'openssh' ? 'openssh' : node.spec.tunnel ? 'agent' : 'postern',
    status,
    labelsCell(labels),
  ],
};

/** Servers: listed by `nodes ls` only (they are added and removed by `nodes add|rm`). */
export const nodeKind: CliKind<NodeRow> = {
  kind: 'node',
  words: [],
  noun: 'server',
  title: 'server',
  refExample: '',
  defaultFormat: 'text',
  list: (ctx) => withInventory(ctx, async (inventory) => inventory.rows()),
  nameOf: (row) => row.node.metadata.name,
  text: nodeKindColumns,
  ls: {
    ...nodeKindColumns,
    empty: 'No servers.',
    sort: (a, b) =>
      a.node.spec.hostname.localeCompare(b.node.spec.hostname) ||
      a.node.metadata.name.localeCompare(b.node.metadata.name),
  },
};
