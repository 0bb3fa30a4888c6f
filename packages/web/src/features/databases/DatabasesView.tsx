import {
  Autocomplete,
  Button,
  Card,
  Code,
  CopyButton,
  Group,
  Popover,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { defaultDatabaseSort, type DatabaseSortField } from '@postern/contracts';
import { useState } from 'react';
import { databaseConsolePath } from '../../app/routes';
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
import {
  connectCommand,
  type Database,
  type DatabaseFilters,
  type DatabasePage,
} from './makeDatabase';

interface Props extends ResourceListExtras<Database> {
  /** The cluster the databases belong to (for the SQL console's link). */
  clusterId: string;
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
  const { attempt, clusterId, ...list } = props;
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
      rowAction={(db) => <ConnectDatabase db={db} clusterId={clusterId} />}
    />
  );
}

/**
 * Connect: pick the database user and name the roles allow, and copy the exact command; for
 * PostgreSQL, or open the SQL console with them in a new browser tab.
 */
export function ConnectDatabase({ db, clusterId }: { db: Database; clusterId: string }) {
  const concrete = (values: string[]) => values.filter((value) => value !== '*');
  const [dbUser, setDbUser] = useState(concrete(db.users)[0] ?? '');
  const [dbName, setDbName] = useState(concrete(db.names)[0] ?? '');
  const command = connectCommand(db, dbUser, dbName);
  return (
    <Popover position="bottom-end" withArrow shadow="md" trapFocus width={380}>
      <Popover.Target>
        <Button variant="default" size="compact-sm" aria-label={`Connect to ${db.name}`}>
          Connect
        </Button>
      </Popover.Target>
      <Popover.Dropdown aria-label={`Connect to ${db.name}`}>
        <Stack gap="xs">
          <Text size="sm">
            Pick the database user and database, then run this with the Postern CLI (after{' '}
            <Code>postern login</Code>):
          </Text>
          <Autocomplete
            label="Database user"
            data={concrete(db.users)}
            value={dbUser}
            onChange={setDbUser}
            comboboxProps={{ withinPortal: false }}
            description={db.users.includes('*') ? 'Your roles allow any user here.' : undefined}
          />
          <Autocomplete
            label="Database name"
            data={concrete(db.names)}
            value={dbName}
            onChange={setDbName}
            comboboxProps={{ withinPortal: false }}
            description={db.names.includes('*') ? 'Your roles allow any database here.' : undefined}
          />
          <Group gap="xs" wrap="nowrap" align="center">
            <Code style={{ flex: 1, overflowWrap: 'anywhere' }} aria-label="Connect command">
              {command}
            </Code>
            <CopyButton value={command}>
              {({ copied, copy }) => (
                <Button
                  size="compact-sm"
                  variant={copied ? 'light' : 'filled'}
                  color={copied ? 'teal' : undefined}
                  onClick={copy}
                  aria-label={copied ? 'Copied' : 'Copy command'}
                >
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          </Group>
          {db.protocol === 'postgres' && (
            <SqlConsoleLink
              href={databaseConsolePath({ clusterId, database: db.name, dbUser, dbName })}
            />
          )}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/** The SQL console (PostgreSQL only), in a new browser tab, once a user and name are chosen. */
function SqlConsoleLink({ href }: { href: string | undefined }) {
  return (
    <Group gap="xs" justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {href ? 'Or query it in the browser:' : 'Pick a user and a database to query it here.'}
      </Text>
      {href ? (
        <Button
          component="a"
          href={href}
          target="_blank"
          rel="noopener noreferrer"
          size="compact-sm"
          variant="light"
        >
          Open SQL console
        </Button>
      ) : (
        <Button size="compact-sm" variant="light" disabled>
          Open SQL console
        </Button>
      )}
    </Group>
  );
}

const exampleDatabase = `kind: db
version: v3
metadata:
  name: orders
  description: Orders (primary)
  labels:
    env: prod
spec:
  protocol: postgres
  uri: db1.internal:5432`;

/** The empty state: how a database joins the cluster. */
export function AddDatabaseHelp() {
  return (
    <Card withBorder padding="lg" aria-labelledby="add-db-title" component="section">
      <Stack gap="sm">
        <Title order={3} id="add-db-title">
          No databases yet
        </Title>
        <Text size="sm">
          A database appears here once the proxy knows it. Describe it in a file and create it, or
          list it under <Code>databases:</Code> in the proxy&apos;s config file:
        </Text>
        <Code block>{exampleDatabase}</Code>
        <Code block>postern create -f db.yaml</Code>
        <Text size="sm">
          The database must trust Postern&apos;s database client CA, which{' '}
          <Code>postern db ca export</Code> prints with the lines to add to its configuration.
        </Text>
      </Stack>
    </Card>
  );
}
