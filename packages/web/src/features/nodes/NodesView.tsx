import { EmptyStateCard } from '../../components/EmptyStateCard';
import { Alert, Badge, Code, Group, List, Text, Tooltip } from '@mantine/core';
import { defaultNodeSort, type NodeSortField } from '@postern/contracts';
import { ChoiceMenu, type Choice } from '../../components/ChoiceMenu';
import {
  labelsColumn,
  ResourceList,
  type ListColumn,
  type ResourceListExtras,
} from '../../components/resourceList/ResourceList';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { mapAttempt, type Attempt } from '../../lib/attempt';
import { formatDateTime } from '../../lib/format';
import { AddLoginsHint, type LoginsHelp } from './AddLoginsHint';
import type { NodeFilters, NodePage, ServerNode } from './makeNode';

export type NodesPaging = ListPaging;

/** Where this proxy is, for the enrolment commands of the empty state. */
export interface ProxyAddress {
  /** host:port for `postern agent --proxy`. */
  addr: string;
  /** scheme://host[:port] for the install script. */
  origin: string;
}

interface Props extends ResourceListExtras<ServerNode> {
  attempt: Attempt<NodePage>;
  onRetry: () => void;
  filters: NodeFilters;
  onFiltersChange: (filters: NodeFilters) => void;
  paging: NodesPaging;
  pageSize: number;
  /** What choosing a login does: open a new browser tab, or a tab in the console. */
  connect: (node: ServerNode, login: string) => Choice;
  /** How a user with no logins here gets some. */
  loginsHelp: LoginsHelp;
  proxy: ProxyAddress;
  /** Inside the console: no page heading, tighter rows. */
  compact?: boolean;
  /** A new page is on its way (the old one is still shown). */
  busy?: boolean;
}

/** The Servers list's columns; labels filter the list when clicked. */
const nodeColumns: ListColumn<ServerNode, NodeSortField>[] = [
  {
    id: 'hostname',
    header: 'Hostname',
    sortKey: 'hostname',
    cell: (n) => (
      <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
        {n.hostname}
      </Text>
    ),
  },
  {
    id: 'addr',
    header: 'Address',
    sortKey: 'addr',
    visibleFrom: 'sm',
    cell: (n) => (
      <Group gap={6} wrap="nowrap">
        {n.tunnel ? (
          <Badge variant="outline" color="gray" tt="none">
            Tunnel
          </Badge>
        ) : (
          <Text size="sm" ff="monospace">
            {n.addr}
          </Text>
        )}
        {n.subKind === 'openssh' && (
          <Badge variant="light" color="gray" tt="none">
            OpenSSH
          </Badge>
        )}
      </Group>
    ),
  },
  labelsColumn((n: ServerNode) => n.labels, { visibleFrom: 'sm' }),
  {
    id: 'status',
    header: 'Status',
    sortKey: 'status',
    fit: true,
    // Offline: when the server last reported (or, agentless, last answered the proxy's check).
    cell: (n) => (
      <Tooltip
        label={n.lastHeartbeat ? `Last seen ${formatDateTime(n.lastHeartbeat)}` : 'Never seen'}
        disabled={n.status === 'online'}
        events={{ hover: true, focus: true, touch: true }}
      >
        <Badge
          color={n.status === 'online' ? 'green' : 'red'}
          variant="light"
          tt="none"
          tabIndex={n.status === 'online' ? undefined : 0}
        >
          {n.status}
        </Badge>
      </Tooltip>
    ),
  },
];

/** Servers: search, label filters and sort on the server, paged 15 at a time. */
export function NodesView(props: Props) {
  const { attempt, connect, loginsHelp, proxy, ...list } = props;
  return (
    <ResourceList
      {...list}
      title="Servers"
      itemsLabel="servers"
      columns={nodeColumns}
      rowKey={(n) => n.id}
      attempt={mapAttempt(attempt, (page) => ({ ...page, items: page.nodes }))}
      // No sort asked for: the server's default order, marked on its column all the same.
      defaultSort={defaultNodeSort}
      search={{ label: 'Search servers', placeholder: 'Search by hostname, address or label' }}
      noMatchText="No servers match your search."
      emptyState={<AddServerHelp proxy={proxy} />}
      notice={(nodes) =>
        nodes.length > 0 &&
        nodes.every((n) => n.sshLogins.length === 0) && (
          <Alert color="blue" variant="light" p="xs">
            <Text size="sm">
              <AddLoginsHint help={loginsHelp} scope="list" />
            </Text>
          </Alert>
        )
      }
      rowAction={(n) => <ConnectNode node={n} connect={connect} loginsHelp={loginsHelp} />}
    />
  );
}

/**
 * A server's Connect: its logins, or one typed in, each opening a session as `connect` says (the
 * Servers list's row action, and the unified Resources list's for a server).
 */
export function ConnectNode({
  node,
  connect,
  loginsHelp,
}: {
  node: ServerNode;
  connect: (node: ServerNode, login: string) => Choice;
  loginsHelp: LoginsHelp;
}) {
  return (
    <ChoiceMenu
      label="Connect"
      ariaLabel={`Connect to ${node.hostname}`}
      heading="Log in as"
      choices={node.sshLogins.map((login) => connect(node, login))}
      // The list is what the roles allowed when the page loaded; the server decides anew.
      typed={{
        label: 'Login',
        placeholder: 'Type a login…',
        toChoice: (login) => connect(node, login),
      }}
      emptyNote={<AddLoginsHint help={loginsHelp} scope="server" />}
    />
  );
}

/** The empty state: the three ways a server joins the cluster. */
export function AddServerHelp({ proxy }: { proxy: ProxyAddress }) {
  return (
    <EmptyStateCard id="add-server-title" title="No servers yet">
      <Text size="sm">A server appears here in one of three ways:</Text>
      <List type="ordered" spacing="sm" size="sm">
        <List.Item>
          <Text size="sm" span fw={600}>
            The Postern host itself.
          </Text>{' '}
          <Code>postern start</Code> runs a node service for the host it runs on, so that host is
          listed as soon as the service is up.
        </List.Item>
        <List.Item>
          <Text size="sm" span fw={600}>
            Another host, with the Postern agent.
          </Text>{' '}
          Create a join token, then run the agent on the host; it keeps a reverse tunnel to this
          proxy:
          <Code block mt={6}>
            {`postern tokens add --type node\npostern agent --proxy ${proxy.addr} --token <token>`}
          </Code>
        </List.Item>
        <List.Item>
          <Text size="sm" span fw={600}>
            An OpenSSH host, without an agent.
          </Text>{' '}
          Register it with the CLI, or run the install script on it (it makes sshd trust the
          cluster&apos;s user CA and registers the host):
          <Code block mt={6}>
            {`postern nodes add --name <name> --addr <host>:22\ncurl ${proxy.origin}/scripts/<token>/install-node.sh | sudo bash`}
          </Code>
        </List.Item>
      </List>
    </EmptyStateCard>
  );
}
