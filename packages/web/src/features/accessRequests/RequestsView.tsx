import { Button, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import type { AccessRequestScope } from '@postern/contracts';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import type { Attempt } from '../../lib/attempt';
import type { AccessRequest } from './makeRequest';
import { StateBadge } from './StateBadge';

export type RequestsTab = Extract<AccessRequestScope, 'mine' | 'review'>;

interface Props {
  tab: RequestsTab;
  onTabChange: (tab: RequestsTab) => void;
  attempt: Attempt<AccessRequest[]>;
  onRetry: () => void;
  /** The signed-in user: only their own pending requests can be deleted. */
  userName: string;
  can: { create: boolean };
  onAssume: (request: AccessRequest) => void;
  onDelete: (request: AccessRequest) => void;
  /** The request being assumed right now, if any. */
  assuming?: string;
}

const shortText = (text: string) => (
  <Text size="sm" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
    {text}
  </Text>
);

/** Access Requests: the user's own requests and those waiting for their review. */
export function RequestsView(props: Props) {
  const { tab, onTabChange, attempt, onRetry, userName, can, onAssume, onDelete, assuming } = props;
  const actions = (r: AccessRequest) => (
    <Group gap={4} wrap="nowrap">
      {r.assumable && (
        <Button size="compact-sm" loading={assuming === r.id} onClick={() => onAssume(r)}>
          Assume
        </Button>
      )}
      <Button
        size="compact-sm"
        variant={r.reviewable ? 'light' : 'subtle'}
        component={Link}
        to={routePath('accessRequest', { requestId: r.id })}
        aria-label={`${r.reviewable ? 'Review' : 'View'} request ${r.id}`}
      >
        {r.reviewable ? 'Review' : 'View'}
      </Button>
      {r.user === userName && r.state === 'PENDING' && (
        <Button size="compact-sm" variant="subtle" color="red" onClick={() => onDelete(r)}>
          Delete
        </Button>
      )}
    </Group>
  );
  const columns: Column<AccessRequest>[] = [
    { key: 'state', header: 'State', fit: true, render: (r) => <StateBadge state={r.state} /> },
    ...(tab === 'review' ? [{ key: 'user', header: 'Requested By', sortable: true }] : []),
    { key: 'requestedText', header: 'Requested', render: (r) => shortText(r.requestedText) },
    { key: 'reason', header: 'Reason', visibleFrom: 'sm', render: (r) => shortText(r.reason) },
    { key: 'reviewersText', header: 'Reviewers', visibleFrom: 'md' },
    {
      key: 'createdText',
      header: 'Created',
      sortable: true,
      visibleFrom: 'sm',
      sortValue: (r) => r.created?.getTime() ?? 0,
    },
    {
      key: 'accessExpiresText',
      header: 'Access Expires',
      sortable: true,
      sortValue: (r) => r.accessExpires?.getTime() ?? 0,
    },
    { key: 'actions', header: 'Actions', fit: true, render: actions },
  ];
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Access Requests</Title>
        {can.create && (
          <Button component={Link} to={routePath('newAccessRequest')}>
            New Access Request
          </Button>
        )}
      </Group>
      <Tabs value={tab} onChange={(value) => onTabChange(value === 'review' ? 'review' : 'mine')}>
        <Tabs.List>
          <Tabs.Tab value="mine">My requests</Tabs.Tab>
          <Tabs.Tab value="review">To review</Tabs.Tab>
        </Tabs.List>
      </Tabs>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(requests) => (
          <ResourceTable
            columns={columns}
            rows={requests}
            rowKey={(r) => r.id}
            label={tab === 'mine' ? 'My requests' : 'Requests to review'}
            emptyText={tab === 'mine' ? 'You have made no requests.' : 'Nothing to review.'}
          />
        )}
      </AttemptView>
    </Stack>
  );
}
