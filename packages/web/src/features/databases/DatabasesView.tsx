import { Stack, Text } from '@mantine/core';
import { defaultDatabaseSort, type DatabaseSortField } from '@postern/contracts';
import {
  descriptionColumn,
  labelsColumn,
  nameColumn,
  ResourceList,
  type ListColumn,
  type ResourceListExtras,
} from '../../components/resourceList/ResourceList';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { mapAttempt, type Attempt } from '../../lib/attempt';
import { AddDatabaseHelp } from './AddDatabaseHelp';
import { ConnectDatabase } from './ConnectDatabase';
import type { Database, DatabaseFilters, DatabasePage } from './makeDatabase';

interface Props extends ResourceListExtras<Database> {
  /** The cluster the databases belong to (for the SQL console's link). */
  clusterId: string;
  /** Set when that cluster is a trusted leaf: the CLI reaches it with `--cluster`. */
  leaf?: string;
  attempt: Attempt<DatabasePage>;
  onRetry: () => void;
  filters: DatabaseFilters;
  onFiltersChange: (filters: DatabaseFilters) => void;
  paging: ListPaging;
  pageSize: number;
  busy?: boolean;
}

const allowedText = (values: string[]) =>
  values.length === 0 ? 'none' : values.map((v) => (v === '*' ? 'any' : v)).join(', ');

/** The Databases list's columns (spec §9 type titles and hosting labels). */
const databaseColumns: ListColumn<Database, DatabaseSortField>[] = [
  nameColumn<Database, DatabaseSortField>(
    'name',
    (db) => db.name,
    (db) => db.status,
  ),
  descriptionColumn<Database, DatabaseSortField>('description', (db) => db.description),
  {
    id: 'type',
    header: 'Type',
    sortKey: 'type',
    visibleFrom: 'sm',
    cell: (db) => (
      <Stack gap={0}>
        <Text size="sm">{db.type}</Text>
        <Text size="xs" c="dimmed">
          {db.hosting}
        </Text>
      </Stack>
    ),
  },
  {
    id: 'access',
    header: 'Users and names',
    visibleFrom: 'lg',
    cell: (db) => (
      <Stack gap={0}>
        <Text size="xs">Users: {allowedText(db.users)}</Text>
        <Text size="xs">Names: {allowedText(db.names)}</Text>
      </Stack>
    ),
  },
  labelsColumn((db: Database) => db.labels, { visibleFrom: 'sm' }),
];

/** Databases: search, label filters and sort on the server, paged 15 at a time. */
export function DatabasesView(props: Props) {
  const { attempt, clusterId, leaf, ...list } = props;
  return (
    <ResourceList
      {...list}
      title="Databases"
      itemsLabel="databases"
      columns={databaseColumns}
      rowKey={(db) => db.name}
      attempt={mapAttempt(attempt, (page) => ({ ...page, items: page.databases }))}
      defaultSort={defaultDatabaseSort}
      search={{
        label: 'Search databases',
        placeholder: 'Search by name, description, type or label',
      }}
      noMatchText="No databases match your search."
      emptyState={<AddDatabaseHelp />}
      rowAction={(db) => <ConnectDatabase db={db} clusterId={clusterId} leaf={leaf} />}
    />
  );
}
