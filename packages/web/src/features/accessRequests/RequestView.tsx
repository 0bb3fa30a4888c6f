import { Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { ReviewVerdict } from '@postern/contracts';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { AttemptView } from '../../components/AttemptView';
import type { Attempt } from '../../lib/attempt';
import { resourceText, reviewDateText, type AccessRequest } from './makeRequest';
import { ReviewForm } from './ReviewForm';
import { StateBadge } from './StateBadge';

interface Props {
  attempt: Attempt<AccessRequest>;
  onRetry: () => void;
  userName: string;
  onReview: (state: ReviewVerdict, reason: string) => Promise<void>;
  onAssume: () => void;
  assuming?: boolean;
  onDelete: () => void;
  /** The viewer may create locks: an approved or pending request offers to lock it. */
  mayLock?: boolean;
}

/** Create New Lock with this request named: every credential that assumed it is locked. */
const lockLink = (id: string) =>
  `${routePath('newLock')}?${new URLSearchParams({ kind: 'access_request', name: id })}`;

const none = (
  <Text span size="sm" c="dimmed">
    none
  </Text>
);
const listOr = (items: string[]) => (items.length > 0 ? items.join(', ') : none);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function Details({ request }: { request: AccessRequest }) {
  const rows: [string, ReactNode][] = [
    [
      'ID',
      <Text key="id" size="sm" ff="monospace">
        {request.id}
      </Text>,
    ],
    ['Requested by', request.user],
    ['Roles', listOr(request.roles)],
    ['Resources', listOr(request.resources.map(resourceText))],
    ['Reason', request.reason || none],
    ['Created', request.createdText],
    ['Pending until', request.requestExpiresText || none],
    ['Access expires', request.accessExpiresText || none],
    ['Decision', request.resolveReason || none],
    ['Suggested reviewers', listOr(request.suggestedReviewers)],
    [
      'Needs',
      listOr(
        request.thresholds.map(
          (t) => `${t.name}: ${plural(t.approve, 'approval')}, ${plural(t.deny, 'denial')}`,
        ),
      ),
    ],
  ];
  return (
    <Table variant="vertical" withTableBorder aria-label="Request details">
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th w={180} scope="row">
              {label}
            </Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Reviews({ request }: { request: AccessRequest }) {
  return (
    <Stack gap="xs" component="section" aria-labelledby="reviews-title">
      <Title order={3} id="reviews-title">
        Reviews
      </Title>
      {request.reviews.length === 0 ? (
        <Text size="sm" c="dimmed">
          No reviews yet.
        </Text>
      ) : (
        <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
          {request.reviews.map((review) => (
            <Stack key={`${review.author}-${review.created}`} gap={2} component="li">
              <Group gap="xs">
                <Text size="sm" fw={600}>
                  {review.author}
                </Text>
                <Badge color={review.state === 'APPROVED' ? 'green' : 'red'} variant="light">
                  {review.state}
                </Badge>
                <Text size="xs" c="dimmed">
                  {reviewDateText(review)}
                </Text>
              </Group>
              {review.reason && <Text size="sm">{review.reason}</Text>}
            </Stack>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

/** One access request: all it holds, its reviews, and what the caller may do with it. */
export function RequestView(props: Props) {
  const { attempt, onRetry, userName, onReview, onAssume, assuming, onDelete, mayLock } = props;
  return (
    <Stack gap="md" maw={820}>
      <Group justify="space-between">
        <Title order={2}>Access Request</Title>
        <Button variant="default" component={Link} to={routePath('accessRequests')}>
          All requests
        </Button>
      </Group>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(request) => (
          <Stack gap="lg">
            <Group gap="sm">
              <StateBadge state={request.state} />
              <Text size="sm">{request.requestedText}</Text>
            </Group>
            <Details request={request} />
            {mayLock && (request.state === 'APPROVED' || request.state === 'PENDING') && (
              <Group>
                <Button variant="default" color="red" component={Link} to={lockLink(request.id)}>
                  Lock request
                </Button>
                <Text size="sm" c="dimmed">
                  Locks every session and certificate that assumed it, and assuming it again.
                </Text>
              </Group>
            )}
            {(request.assumable || (request.user === userName && request.state === 'PENDING')) && (
              <Group>
                {request.assumable && (
                  <Button loading={assuming} onClick={onAssume}>
                    Assume roles
                  </Button>
                )}
                {request.user === userName && request.state === 'PENDING' && (
                  <Button variant="subtle" color="red" onClick={onDelete}>
                    Delete request
                  </Button>
                )}
              </Group>
            )}
            <Reviews request={request} />
            {request.reviewable && <ReviewForm onReview={onReview} />}
          </Stack>
        )}
      </AttemptView>
    </Stack>
  );
}
