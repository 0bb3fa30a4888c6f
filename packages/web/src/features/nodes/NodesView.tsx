import {
  Alert,
  Badge,
  Card,
  Code,
  Group,
  List,
  Stack,
  Text,
  Title,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { defaultNodeSort, type NodeSortField } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import { ChoiceMenu, type Choice } from '../../components/ChoiceMenu';
import { pageRange } from '../../components/cursorPaging';
import { FilterChips, LabelChips } from '../../components/LabelChips';
import { Pager } from '../../components/Pager';
import { ResourceTable, type Column, type TableSort } from '../../components/ResourceTable';
import { SearchInput } from '../../components/SearchInput';
import type { Attempt } from '../../lib/attempt';
import { formatDateTime } from '../../lib/format';
import { AddLoginsHint, type LoginsHelp } from './AddLoginsHint';
import {
  addLabel,
  queryLabels,
  removeLabel,
  type NodeFilters,
  type NodePage,
  type ServerNode,
} from './makeNode';

export interface NodesPaging {
  pageIndex: number;
  canPrev: boolean;
  onPrev: () => void;
  /** Called with the start key the server returned for the next page. */
  onNext: (startKey: string) => void;
}

/** Where this proxy is, for the enrolment commands of the empty state. */
export interface ProxyAddress {
  /** host:port for `postern agent --proxy`. */
  addr: string;
  /** scheme://host[:port] for the install script. */
  origin: string;
}

interface Props {
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

/** Servers: search, label filters and sort on the server, paged 15 at a time. */
export function NodesView(props: Props) {
  const { attempt, onRetry, filters, onFiltersChange, paging, pageSize, connect } = props;
  const { loginsHelp, proxy, compact = false, busy = false } = props;
  const labels = filters.query ? queryLabels(filters.query) : [];
  const filtered = filters.search !== '' || filters.query !== '';

  // No sort asked for: the server's default order, marked on its column all the same.
  const sort = filters.sort ?? defaultNodeSort;
  const tableSort: TableSort = { key: sort.field, dir: sort.dir };
  const onSortChange = (sort: TableSort) =>
    onFiltersChange({ ...filters, sort: { field: sort.key as NodeSortField, dir: sort.dir } });

  const columns: Column<ServerNode>[] = [
    {
      key: 'hostname',
      header: 'Hostname',
      sortable: true,
      render: (n) => (
        <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
          {n.hostname}
        </Text>
      ),
    },
    {
      key: 'addr',
      header: 'Address',
      sortable: true,
      visibleFrom: 'sm',
      render: (n) => (
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
    {
      key: 'labels',
      header: 'Labels',
      visibleFrom: 'sm',
      render: (n) => (
        <LabelChips
          labels={n.labels}
          onSelect={(label) =>
            onFiltersChange({ ...filters, query: addLabel(filters.query, label) })
          }
        />
      ),
    },
    {
      key: 'status',
      header: 'Status',
      sortable: true,
      fit: true,
      // Offline: when the server last reported (or, agentless, last answered the proxy's check).
      render: (n) => (
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
    {
      key: 'connect',
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      fit: true,
      render: (n) => (
        <ChoiceMenu
          label="Connect"
          ariaLabel={`Connect to ${n.hostname}`}
          heading="Log in as"
          choices={n.sshLogins.map((login) => connect(n, login))}
          // The list is what the roles allowed when the page loaded; the server decides anew.
          typed={{
            label: 'Login',
            placeholder: 'Type a login…',
            toChoice: (login) => connect(n, login),
          }}
          emptyNote={<AddLoginsHint help={loginsHelp} scope="server" />}
        />
      ),
    },
  ];

  return (
    <Stack gap="md">
      {!compact && <Title order={2}>Servers</Title>}
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(page) =>
          page.totalCount === 0 && !filtered ? (
            <AddServerHelp proxy={proxy} />
          ) : (
            <Stack gap="sm">
              <Group justify="space-between" align="flex-end">
                <SearchInput
                  label="Search servers"
                  placeholder="Search by hostname, address or label"
                  value={filters.search}
                  onSearch={(search) => onFiltersChange({ ...filters, search })}
                />
              </Group>
              {page.nodes.length > 0 && page.nodes.every((n) => n.sshLogins.length === 0) && (
                <Alert color="blue" variant="light" p="xs">
                  <Text size="sm">
                    <AddLoginsHint help={loginsHelp} scope="list" />
                  </Text>
                </Alert>
              )}
              <FilterChips
                labels={labels}
                onRemove={(label) =>
                  onFiltersChange({ ...filters, query: removeLabel(filters.query, label) })
                }
                onClear={() => onFiltersChange({ ...filters, query: '' })}
              />
              <ResourceTable
                columns={columns}
                rows={page.nodes}
                rowKey={(n) => n.id}
                sort={tableSort}
                onSortChange={onSortChange}
                compact={compact}
                emptyText="No servers match your search."
              />
              <Pager
                {...pageRange(paging.pageIndex, pageSize, page.nodes.length, page.totalCount)}
                itemsLabel="servers"
                canPrev={paging.canPrev}
                canNext={page.startKey !== ''}
                onPrev={paging.onPrev}
                onNext={() => paging.onNext(page.startKey)}
                busy={busy}
              />
            </Stack>
          )
        }
      </AttemptView>
    </Stack>
  );
}

/** The empty state: the three ways a server joins the cluster. */
export function AddServerHelp({ proxy }: { proxy: ProxyAddress }) {
  return (
    <Card withBorder padding="lg" aria-labelledby="add-server-title" component="section">
      <Stack gap="sm">
        <Title order={3} id="add-server-title">
          No servers yet
        </Title>
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
      </Stack>
    </Card>
  );
}
