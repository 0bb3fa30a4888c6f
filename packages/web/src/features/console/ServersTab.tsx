import { Box, Text } from '@mantine/core';
import { useState } from 'react';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { noFilters, type NodeFilters } from '../nodes/makeNode';
import { proxyAddressOf } from '../nodes/NodesPage';
import { NodesView } from '../nodes/NodesView';
import { useLoginsHelp } from '../nodes/useLoginsHelp';
import { useNodes } from '../nodes/useNodes';
import { useConsole } from './ConsoleContext';

/** The console's Servers tab: the server list, where a login opens a terminal tab right here. */
export function ServersTab() {
  const { nodes: canListNodes } = useFeatureFlags();
  if (!canListNodes) {
    return (
      <Box p="md">
        <Text c="dimmed">You are not allowed to list servers.</Text>
      </Box>
    );
  }
  return <ServerList />;
}

function ServerList() {
  const { clusterId, dispatch } = useConsole();
  // Here the URL follows the tabs, so the list's filters stay in the tab.
  const [filters, setFilters] = useState<NodeFilters>(noFilters);
  const { listProps } = useNodes(clusterId, filters);
  const loginsHelp = useLoginsHelp(true);
  return (
    <Box p="md">
      <NodesView
        compact
        {...listProps}
        filters={filters}
        onFiltersChange={setFilters}
        connect={(node, login) => ({
          label: login,
          onSelect: () =>
            dispatch({
              type: 'open',
              target: {
                kind: 'connect',
                clusterId,
                serverId: node.id,
                login,
                hostname: node.hostname,
              },
            }),
        })}
        loginsHelp={loginsHelp}
        proxy={proxyAddressOf(window.location)}
      />
    </Box>
  );
}
