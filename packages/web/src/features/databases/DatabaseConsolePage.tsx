import { Code, Text } from '@mantine/core';
import { apiPaths, type DatabaseConsoleRequest } from '@postern/contracts';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { SingleTerminalPage } from '../console/SingleTerminalPage';
import type { TerminalSocketTarget } from '../console/startTerminalSession';
import type { TerminalDeps } from '../console/terminalDeps';

export interface DatabaseConsoleTarget {
  clusterId: string;
  database: string;
  dbUser: string;
  dbName: string;
}

/** The SQL console's socket: the terminal protocol, with a database user and name in `params`. */
export function databaseConsoleSocket(target: DatabaseConsoleTarget): TerminalSocketTarget {
  return {
    path: apiPaths.databaseConsole(target.clusterId, target.database),
    params: (term): DatabaseConsoleRequest => ({
      db_user: target.dbUser,
      db_name: target.dbName,
      term,
    }),
  };
}

/**
 * `/web/cluster/:clusterId/databases/:database/console/:dbUser/:dbName`: the browser's SQL
 * console for a PostgreSQL or MySQL/MariaDB database (full page), the server console's terminal on the database's
 * console socket. One session per page: a new database user or name is a new page.
 */
export function DatabaseConsolePage({ deps }: { deps?: Partial<TerminalDeps> } = {}) {
  const { proxyCluster } = useClientConfig();
  const params = useParams();
  const target: DatabaseConsoleTarget = {
    clusterId: params.clusterId ?? proxyCluster,
    database: params.database ?? '',
    dbUser: params.dbUser ?? '',
    dbName: params.dbName ?? '',
  };
  const { clusterId, database, dbUser, dbName } = target;
  return (
    <SingleTerminalPage
      home={{ href: routePath('clusterDatabases', { clusterId }), label: 'Postern databases' }}
      title={`SQL console: ${database}`}
      details={
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          user <Code aria-label="Database user">{dbUser}</Code>, database{' '}
          <Code aria-label="Database name">{dbName}</Code>
        </Text>
      }
      target={databaseConsoleSocket(target)}
      // Another database, user or name in the URL is another session.
      sessionKey={JSON.stringify(target)}
      deps={deps}
    />
  );
}
