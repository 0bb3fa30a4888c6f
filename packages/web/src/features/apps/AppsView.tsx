import { Text } from '@mantine/core';
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
import { AddAppHelp } from './AddAppHelp';
import { AppAction } from './AppAction';
import type { App, AppFilters, AppPage } from './makeApp';

interface Props extends ResourceListExtras<App> {
  attempt: Attempt<AppPage>;
  onRetry: () => void;
  filters: AppFilters;
  onFiltersChange: (filters: AppFilters) => void;
  paging: ListPaging;
  pageSize: number;
  /** This proxy's host name, for the empty state's note on default addresses. */
  proxyHost: string;
  /** Set when the cluster listed is a trusted leaf: its apps are reached with `--cluster`. */
  leaf?: string;
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
  const { attempt, proxyHost, leaf, ...list } = props;
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
      rowAction={(app) => <AppAction app={app} leaf={leaf} />}
    />
  );
}
