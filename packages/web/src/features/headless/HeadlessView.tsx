import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { HeadlessRequestView } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import { MessageCard } from '../../components/MessageCard';
import type { Attempt } from '../../lib/attempt';
import type { HeadlessDecision } from './useHeadless';

interface Props {
  attempt: Attempt<HeadlessRequestView>;
  onRetry: () => void;
  /** The answer being sent, if any. */
  pending: HeadlessDecision | null;
  /** Why the last answer failed (a key that did not sign, an expired request). */
  error: string | null;
  onApprove: () => void;
  onReject: () => void;
  now: number;
}

/** The headless approval page (spec §2 /web/headless/:requestId): a pure view. */
export function HeadlessView(props: Props) {
  return (
    <MessageCard title="Headless login request">
      <AttemptView attempt={props.attempt} onRetry={props.onRetry}>
        {(request) => <RequestDetails request={request} {...props} />}
      </AttemptView>
    </MessageCard>
  );
}

function RequestDetails({
  request,
  pending,
  error,
  onApprove,
  onReject,
  now,
}: Props & { request: HeadlessRequestView }) {
  if (request.state === 'approved') {
    return (
      <Alert color="green" title="Approved" role="status">
        The login of {request.user} was approved. You can close this tab.
      </Alert>
    );
  }
  if (request.state === 'denied') {
    return (
      <Alert color="gray" title="Rejected" role="status">
        The login request was rejected. You can close this tab.
      </Alert>
    );
  }
  if (Date.parse(request.expires) <= now) {
    return (
      <Alert color="orange" title="Expired" role="alert">
        This login request expired. Run <code>postern login --headless</code> again.
      </Alert>
    );
  }
  return (
    <Stack gap="md">
      <Text>
        Someone has initiated a command from <strong>{request.client_ip_address}</strong> as{' '}
        <strong>{request.user}</strong>.
      </Text>
      <Text size="sm" c="dimmed">
        Approve only if you started <code>postern login --headless</code> yourself. Approving needs
        your hardware key or passkey.
      </Text>
      {error && (
        <Alert color="red" title="Could not answer the request" role="alert">
          {error}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button
          variant="default"
          onClick={onReject}
          loading={pending === 'denied'}
          disabled={pending !== null}
        >
          Reject
        </Button>
        <Button onClick={onApprove} loading={pending === 'accept'} disabled={pending !== null}>
          Approve
        </Button>
      </Group>
    </Stack>
  );
}
