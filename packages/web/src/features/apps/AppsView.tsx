import {
  Button,
  Card,
  Code,
  CopyButton,
  Group,
  List,
  Popover,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { defaultAppSort, type AppSortField } from '@postern/contracts';
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
import { proxyAppCommand, type App, type AppFilters, type AppPage } from './makeApp';

interface Props extends ResourceListExtras<App> {
  attempt: Attempt<AppPage>;
  onRetry: () => void;
  filters: AppFilters;
  onFiltersChange: (filters: AppFilters) => void;
  paging: ListPaging;
  pageSize: number;
  /** This proxy's host name, for the empty state's note on default addresses. */
  proxyHost: string;
  /** A new page is on its way (the old one is still shown). */
  busy?: boolean;
}

/** The Applications list's columns; labels filter the list when clicked. */
const appColumns: ListColumn<App, AppSortField>[] = [
  nameColumn<App, AppSortField>(
    'name',
    (app) => app.friendlyName,
    (app) => app.status,
  ),
  descriptionColumn<App, AppSortField>('description', (app) => app.description),
  {
    id: 'address',
    header: 'Address',
    sortKey: 'publicAddr',
    visibleFrom: 'sm',
    cell: (app) => (
      <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
        {app.addrWithProtocol}
      </Text>
    ),
  },
  labelsColumn((app: App) => app.labels, { visibleFrom: 'sm' }),
];

/** Applications: search, label filters and sort on the server, paged 15 at a time. */
export function AppsView(props: Props) {
  const { attempt, proxyHost, ...list } = props;
  return (
    <ResourceList
      {...list}
      title="Applications"
      itemsLabel="applications"
      columns={appColumns}
      rowKey={(app) => app.id}
      attempt={mapAttempt(attempt, (page) => ({ ...page, items: page.apps }))}
      // No sort asked for: the server's default order, marked on its column all the same.
      defaultSort={defaultAppSort}
      search={{
        label: 'Search applications',
        placeholder: 'Search by name, description, address or label',
      }}
      noMatchText="No applications match your search."
      emptyState={<AddAppHelp proxyHost={proxyHost} />}
      rowAction={(app) => <AppAction app={app} />}
    />
  );
}

/** HTTP apps open in a new tab through the launcher; TCP apps are reached with the CLI. */
export function AppAction({ app }: { app: App }) {
  if (app.isTcp) return <TcpConnect app={app} />;
  if (!app.launchUrl) {
    const reason = 'This application has no address to launch it at.';
    // A disabled button gets no pointer events; data-disabled keeps the tooltip working.
    return (
      <Tooltip label={reason} withinPortal={false}>
        <Button
          variant="default"
          size="compact-sm"
          data-disabled
          aria-disabled="true"
          aria-label={`Launch ${app.name}`}
          aria-description={reason}
          onClick={(e) => e.preventDefault()}
        >
          Launch
        </Button>
      </Tooltip>
    );
  }
  return (
    <Button
      component="a"
      href={app.launchUrl}
      target="_blank"
      rel="noopener noreferrer"
      variant="default"
      size="compact-sm"
      aria-label={`Launch ${app.name}`}
    >
      Launch
    </Button>
  );
}

/** Connect to a TCP app: the command that opens a local tunnel to it, ready to copy. */
function TcpConnect({ app }: { app: App }) {
  const command = proxyAppCommand(app);
  return (
    <Popover position="bottom-end" withArrow shadow="md" trapFocus>
      <Popover.Target>
        <Button variant="default" size="compact-sm" aria-label={`Connect to ${app.name}`}>
          Connect
        </Button>
      </Popover.Target>
      <Popover.Dropdown maw={360} aria-label={`Connect to ${app.name}`}>
        <Stack gap="xs">
          <Text size="sm">
            A TCP application is reached through a local tunnel. Run this with the Postern CLI, then
            connect to the local address it prints:
          </Text>
          <Group gap="xs" wrap="nowrap" align="center">
            <Code style={{ flex: 1, overflowWrap: 'anywhere' }}>{command}</Code>
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
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

const exampleApp = `kind: app
version: v3
metadata:
  name: grafana
  description: Dashboards
  labels:
    env: prod
spec:
  uri: http://localhost:3000
  public_addr: grafana.example.com`;

/** The empty state: how an application joins the cluster. */
export function AddAppHelp({ proxyHost }: { proxyHost: string }) {
  return (
    <Card withBorder padding="lg" aria-labelledby="add-app-title" component="section">
      <Stack gap="sm">
        <Title order={3} id="add-app-title">
          No applications yet
        </Title>
        <Text size="sm">
          An application appears here once the proxy knows it. Describe it in a file and create it,
          or list it under <Code>apps:</Code> in the proxy&apos;s config file (the same fields,
          flat):
        </Text>
        <Code block>{exampleApp}</Code>
        <Code block>postern create -f app.yaml</Code>
        <List spacing="xs" size="sm">
          <List.Item>
            <Text size="sm" span fw={600}>
              HTTP applications
            </Text>{' '}
            (<Code>http://</Code> or <Code>https://</Code> in <Code>uri</Code>) open in the browser
            with Launch, and to scripts and <Code>curl</Code> through{' '}
            <Code>postern proxy app &lt;name&gt;</Code>. Without <Code>public_addr</Code> one is
            served at <Code>{`<name>.${proxyHost}`}</Code>.
          </List.Item>
          <List.Item>
            <Text size="sm" span fw={600}>
              TCP applications
            </Text>{' '}
            (<Code>tcp://host:port</Code> in <Code>uri</Code>) are reached with{' '}
            <Code>postern proxy app &lt;name&gt;</Code>.
          </List.Item>
        </List>
      </Stack>
    </Card>
  );
}
