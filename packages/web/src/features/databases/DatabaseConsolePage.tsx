import { Anchor, Box, Code, Group, Text, Title } from '@mantine/core';
import { apiPaths, type DatabaseConsoleRequest } from '@postern/contracts';
import { useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import type { TerminalStatus } from '../console/consoleStore';
import { useTerminalFontSize } from '../console/fontSize';
import { startTerminalSession, type TerminalSocketTarget } from '../console/startTerminalSession';
import { browserTerminalDeps, type TerminalDeps } from '../console/terminalDeps';
import { TerminalPane, type StartTerminal } from '../console/TerminalPane';

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
 * console for a PostgreSQL database (full page), the server console's terminal on the database's
 * console socket. One session per page: a new database user or name is a new page.
 */
export function DatabaseConsolePage({ deps: overrides }: { deps?: Partial<TerminalDeps> } = {}) {
  const { proxyCluster } = useClientConfig();
  const params = useParams();
  const target: DatabaseConsoleTarget = {
    clusterId: params.clusterId ?? proxyCluster,
    database: params.database ?? '',
    dbUser: params.dbUser ?? '',
    dbName: params.dbName ?? '',
  };
  const deps = useMemo<TerminalDeps>(
    () => ({ ...browserTerminalDeps(), ...overrides }),
    [overrides],
  );
  const { clusterId, database, dbUser, dbName } = target;
  return (
    <Box style={{ display: 'flex', flexDirection: 'column', height: '100dvh' }}>
      <Group
        component="header"
        gap="sm"
        px="sm"
        py={8}
        wrap="nowrap"
        style={{
          borderBottom: '1px solid var(--mantine-color-default-border)',
          background: 'var(--mantine-color-default-hover)',
          flexShrink: 0,
          overflowX: 'auto',
        }}
      >
        <Anchor
          href={routePath('clusterDatabases', { clusterId })}
          fw={700}
          fz="sm"
          aria-label="Postern databases"
        >
          Postern
        </Anchor>
        <Title order={1} fz="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>
          SQL console: {database}
        </Title>
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          user <Code aria-label="Database user">{dbUser}</Code>, database{' '}
          <Code aria-label="Database name">{dbName}</Code>
        </Text>
      </Group>
      <Box style={{ flex: 1, minHeight: 0 }}>
        {/* Another database, user or name in the URL is another session. */}
        <SqlConsole key={JSON.stringify(target)} target={target} deps={deps} />
      </Box>
    </Box>
  );
}

function SqlConsole({ target, deps }: { target: DatabaseConsoleTarget; deps: TerminalDeps }) {
  const [fontSize, setFontSize] = useTerminalFontSize();
  const [state, setState] = useState<{ status: TerminalStatus; reason: string }>({
    status: 'connecting',
    reason: '',
  });
  const disconnected = (reason: string) =>
    setState((now) => (now.status === 'disconnected' ? now : { status: 'disconnected', reason }));

  const start: StartTerminal = (engine, container, onShortcut) =>
    startTerminalSession(engine, container, {
      target: databaseConsoleSocket(target),
      deps,
      readOnly: false,
      onShortcut,
      events: {
        connected: () =>
          setState((now) => (now.status === 'connecting' ? { ...now, status: 'connected' } : now)),
        disconnected,
      },
    });

  return (
    <TerminalPane
      status={state.status}
      reason={state.reason}
      active
      readOnly={false}
      fontSize={fontSize}
      setFontSize={setFontSize}
      deps={deps}
      start={start}
      onLoadFailed={disconnected}
    />
  );
}
