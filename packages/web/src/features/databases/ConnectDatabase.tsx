import { Autocomplete, Code, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { databaseConsolePath } from '../../app/routes';
import { ConnectPopover } from '../../components/connect/ConnectPopover';
import { CopyableCommand } from '../../components/connect/CopyableCommand';
import { NewTabButton } from '../../components/connect/NewTabButton';
import { connectCommand, type Database } from './makeDatabase';

/** Protocols the browser's SQL console speaks (the server's console clients, one per dialect). */
const consoleProtocols = new Set(['postgres', 'mysql']);

/**
 * Connect: pick the database user and name the roles allow, and copy the exact command; for
 * PostgreSQL and MySQL/MariaDB, or open the SQL console with them in a new browser tab.
 */
export function ConnectDatabase({
  db,
  clusterId,
  leaf,
}: {
  db: Database;
  clusterId: string;
  /** A trusted leaf's database (the cluster picked is not the one signed in to). */
  leaf?: string;
}) {
  const concrete = (values: string[]) => values.filter((value) => value !== '*');
  const [dbUser, setDbUser] = useState(concrete(db.users)[0] ?? '');
  const [dbName, setDbName] = useState(concrete(db.names)[0] ?? '');
  return (
    <ConnectPopover name={db.name} width={380}>
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
      <CopyableCommand command={connectCommand(db, dbUser, dbName, leaf)} label="Connect command" />
      {consoleProtocols.has(db.protocol) && (
        <SqlConsoleLink
          href={databaseConsolePath({ clusterId, database: db.name, dbUser, dbName })}
        />
      )}
    </ConnectPopover>
  );
}

/** The SQL console, in a new browser tab, once a user and name are chosen. */
function SqlConsoleLink({ href }: { href: string | undefined }) {
  return (
    <Group gap="xs" justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {href ? 'Or query it in the browser:' : 'Pick a user and a database to query it here.'}
      </Text>
      <NewTabButton href={href}>Open SQL console</NewTabButton>
    </Group>
  );
}
