import { Badge, Group, Text } from '@mantine/core';
import { defaultDesktopSort, type DesktopSortField } from '@postern/contracts';
import type { ReactNode } from 'react';
import {
  labelsColumn,
  nameColumn,
  ResourceList,
  type ListColumn,
  type ResourceListExtras,
} from '../../components/resourceList/ResourceList';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { mapAttempt, type Attempt } from '../../lib/attempt';
import { AddDesktopHelp } from './AddDesktopHelp';
import { protocolName, type Desktop, type DesktopFilters, type DesktopPage } from './makeDesktop';

interface Props extends ResourceListExtras<Desktop> {
  attempt: Attempt<DesktopPage>;
  onRetry: () => void;
  filters: DesktopFilters;
  onFiltersChange: (filters: DesktopFilters) => void;
  paging: ListPaging;
  pageSize: number;
  busy?: boolean;
  /** The row's Connect menu (it asks the server whether the desktop is in use). */
  renderConnect: (desktop: Desktop) => ReactNode;
}

/** The logins the roles allow here, as text; none said plainly. */
export const desktopLoginsText = (logins: string[]) =>
  logins.length === 0 ? 'none' : logins.join(', ');

/** The Desktops list's columns (spec §3 Desktop: name, addr, os, labels, logins). */
const desktopColumns: ListColumn<Desktop, DesktopSortField>[] = [
  nameColumn<Desktop, DesktopSortField>(
    'name',
    (desktop) => desktop.name,
    (desktop) => desktop.status,
  ),
  {
    id: 'addr',
    header: 'Address',
    sortKey: 'addr',
    visibleFrom: 'sm',
    cell: (desktop) => (
      <Group gap={6} wrap="nowrap">
        {desktop.tunnel ? (
          <Badge variant="outline" color="gray" tt="none">
            Tunnel
          </Badge>
        ) : (
          <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {desktop.addr}
          </Text>
        )}
        <Badge variant="light" color="gray" tt="none">
          {protocolName(desktop.protocol)}
        </Badge>
      </Group>
    ),
  },
  {
    id: 'os',
    header: 'OS',
    sortKey: 'os',
    visibleFrom: 'md',
    cell: (desktop) => <Text size="sm">{desktop.os}</Text>,
  },
  labelsColumn((desktop: Desktop) => desktop.labels, { visibleFrom: 'sm' }),
  {
    id: 'logins',
    header: 'Logins',
    visibleFrom: 'md',
    cell: (desktop) => (
      <Text size="xs" c={desktop.logins.length === 0 ? 'dimmed' : undefined}>
        {desktopLoginsText(desktop.logins)}
      </Text>
    ),
  },
];

/** Desktops: search, label filters and sort on the server, paged 15 at a time. */
export function DesktopsView(props: Props) {
  const { attempt, renderConnect, ...list } = props;
  return (
    <ResourceList
      {...list}
      title="Desktops"
      itemsLabel="desktops"
      columns={desktopColumns}
      rowKey={(desktop) => desktop.name}
      attempt={mapAttempt(attempt, (page) => ({ ...page, items: page.desktops }))}
      defaultSort={defaultDesktopSort}
      search={{ label: 'Search desktops', placeholder: 'Search by name, address, OS or label' }}
      noMatchText="No desktops match your search."
      emptyState={<AddDesktopHelp />}
      rowAction={renderConnect}
    />
  );
}
