import { Badge, Button, Chip, Group, Stack, Text } from '@mantine/core';
import { unifiedResourceKinds, type UnifiedResourceKind } from '@postern/contracts';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import {
  labelsColumn,
  nameColumn,
  ResourceList,
  type ListColumn,
  type ResourcePage,
} from '../../components/resourceList/ResourceList';
import type { ListSort } from '../../components/resourceList/listFilters';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import type { Attempt } from '../../lib/attempt';
import {
  kindsOf,
  resourceDetail,
  withKinds,
  type Resource,
  type ResourceFilters,
  type ResourceSortField,
} from './makeResource';
import { resourceKinds } from './resourceKinds';
import { NoPins } from './ResourceViewControls';
import type { ResourcesTab } from '@postern/contracts';
import { EmptyStateCard } from '../../components/EmptyStateCard';
import { FailureAlert } from '../../components/FailureAlert';

interface Props {
  attempt: Attempt<ResourcePage<Resource>>;
  onRetry: () => void;
  filters: ResourceFilters;
  onFiltersChange: (filters: ResourceFilters) => void;
  paging: ListPaging;
  pageSize: number;
  /** A new page is on its way (the old one is still shown). */
  busy?: boolean;
  /** The kinds the user may list, offered as filters (no filter for fewer than two). */
  kinds: readonly UnifiedResourceKind[];
  /** The row's own Connect, Launch… as its kind's page shows it. */
  renderAction: (resource: Resource) => ReactNode;
  /** The user may enroll new resources (the empty state links to Enroll New Resource). */
  canEnroll: boolean;
  /** All resources or the pinned ones: the Pinned tab's empty state says how to pin. */
  tab: ResourcesTab;
  /** A row's pin and request controls (none where the user may not pin or request). */
  extraRowAction?: (resource: Resource) => ReactNode;
  /** The tabs, the included-resources choice and the cart, beside the heading. */
  headerActions?: ReactNode;
  /** Why the last change of preferences was not saved. */
  saveError?: string;
}

function KindCell({ kind }: { kind: UnifiedResourceKind }) {
  const { label, icon: KindIcon } = resourceKinds[kind];
  return (
    <Group gap={6} wrap="nowrap">
      <KindIcon size={18} stroke={1.6} aria-hidden="true" />
      <Text size="sm">{label}</Text>
    </Group>
  );
}

/** Addresses in monospace, a tunnel as a badge (as the kinds' pages show them), else text. */
function DetailCell({ resource }: { resource: Resource }) {
  const detail = resourceDetail(resource);
  if (detail.type === 'tunnel') {
    return (
      <Badge variant="outline" color="gray" tt="none">
        Tunnel
      </Badge>
    );
  }
  if (!detail.text) {
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  }
  return (
    <Text
      size="sm"
      ff={detail.type === 'address' ? 'monospace' : undefined}
      style={{ overflowWrap: 'anywhere' }}
    >
      {detail.text}
    </Text>
  );
}

/** The unified list's columns; labels filter the list when clicked, as on every kind's page. */
const resourceColumns: ListColumn<Resource, ResourceSortField>[] = [
  {
    id: 'kind',
    header: 'Kind',
    sortKey: 'kind',
    fit: true,
    cell: (r) => <KindCell kind={r.kind} />,
  },
  nameColumn<Resource, ResourceSortField>(
    'name',
    (r) => r.name,
    (r) => r.status,
  ),
  {
    id: 'details',
    header: 'Details',
    visibleFrom: 'sm',
    cell: (r) => <DetailCell resource={r} />,
  },
  labelsColumn((r: Resource) => r.labels, { visibleFrom: 'sm' }),
];

/** The server's order when none is asked for (the contract names none: a wish). */
const defaultResourceSort: ListSort<ResourceSortField> = { field: 'name', dir: 'asc' };

/** All, or any of the kinds the user may list; choosing one lists only those. */
export function KindFilter({
  offered,
  chosen,
  onChange,
}: {
  offered: readonly UnifiedResourceKind[];
  chosen: readonly UnifiedResourceKind[];
  onChange: (kinds: UnifiedResourceKind[]) => void;
}) {
  return (
    <Group gap={6} role="group" aria-label="Kinds">
      <Chip size="sm" checked={chosen.length === 0} onChange={() => onChange([])}>
        All
      </Chip>
      <Chip.Group
        multiple
        value={[...chosen]}
        onChange={(values) => onChange(unifiedResourceKinds.filter((k) => values.includes(k)))}
      >
        {offered.map((kind) => (
          <Chip key={kind} size="sm" value={kind}>
            {resourceKinds[kind].plural}
          </Chip>
        ))}
      </Chip.Group>
    </Group>
  );
}

/**
 * Resources: everything the user may reach, of every kind, in one list, with each kind's own
 * Connect; search, label filters, kinds and sort on the server, paged 15 at a time.
 */
export function ResourcesView(props: Props) {
  const { kinds, renderAction, canEnroll, filters, onFiltersChange, tab, saveError, ...list } =
    props;
  return (
    <Stack gap="sm">
      {saveError && (
        <FailureAlert title="Your Resources preferences were not saved" message={saveError} />
      )}
      <ResourceList
        {...list}
        filters={filters}
        onFiltersChange={onFiltersChange}
        title="Resources"
        itemsLabel="resources"
        columns={resourceColumns}
        rowKey={(r) => r.id}
        // No sort asked for: the server's order, by name (a server's hostname), marked as such.
        defaultSort={defaultResourceSort}
        search={{
          label: 'Search resources',
          placeholder: 'Search by name, address, description or label',
        }}
        noMatchText="No resources match your search."
        emptyState={tab === 'pinned' ? <NoPins /> : <NoResources canEnroll={canEnroll} />}
        filterControls={
          kinds.length > 1 && (
            <KindFilter
              offered={kinds}
              chosen={kindsOf(filters)}
              onChange={(next) => onFiltersChange(withKinds(filters, next))}
            />
          )
        }
        rowAction={renderAction}
      />
    </Stack>
  );
}

/** The empty state: nothing reachable yet, and where resources are enrolled when the user may. */
export function NoResources({ canEnroll }: { canEnroll: boolean }) {
  return (
    <EmptyStateCard id="no-resources-title" title="No resources yet" align="flex-start">
      <Text size="sm">
        Servers, applications, databases, Kubernetes clusters and desktops show up here once they
        have joined the cluster and your roles let you reach them.
      </Text>
      {canEnroll ? (
        <Button component={Link} to={routePath('discover')} variant="light">
          Enroll New Resource
        </Button>
      ) : (
        <Text size="sm" c="dimmed">
          Ask an admin to enroll resources, or for roles that reach them.
        </Text>
      )}
    </EmptyStateCard>
  );
}
