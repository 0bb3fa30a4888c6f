import { Alert, Button, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import type { Attempt } from '../../lib/attempt';
import { PageLoader } from '../../components/PageLoader';

export interface UserLink {
  /** The link to share. */
  url: string;
  expiresText: string;
}

export interface UserLinkState {
  user: string;
  type: 'invite' | 'password';
  /** Set when the user was just created (the invite follows the creation). */
  created?: boolean;
  attempt: Attempt<UserLink>;
}

interface Props {
  state: UserLinkState | null;
  onRetry: () => void;
  onClose: () => void;
}

export const userLinkTitle = (type: UserLinkState['type']) =>
  type === 'invite' ? 'Invite link' : 'Password reset link';

/** Shows an invite or reset link, to copy and give to the user. */
export function UserLinkDialog({ state, onRetry, onClose }: Props) {
  return (
    <Modal
      opened={state !== null}
      onClose={onClose}
      title={state ? userLinkTitle(state.type) : ''}
      size="lg"
      centered
    >
      {state && <LinkBody state={state} onRetry={onRetry} onClose={onClose} />}
    </Modal>
  );
}

function LinkBody({ state, onRetry, onClose }: Props & { state: UserLinkState }) {
  const { user, type, created, attempt } = state;
  const invite = type === 'invite';
  return (
    <Stack gap="md">
      {created && (
        <Text>
          User <strong>{user}</strong> was created.
        </Text>
      )}
      {attempt.status === 'loading' && <PageLoader label="Creating the link" />}
      {attempt.status === 'error' && (
        <Alert color="red" role="alert" title="Could not create the link">
          <Stack gap="xs">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {attempt.message}
            </Text>
            <Group>
              <Button size="xs" variant="light" color="red" onClick={onRetry}>
                Retry
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
      {attempt.status === 'success' && (
        <>
          <Text size="sm">
            {invite
              ? `Share this link with ${user} to set a password and a second factor.`
              : `Share this link with ${user} to set a new password.`}{' '}
            It expires at {attempt.data.expiresText}.
          </Text>
          <Group gap="xs" align="flex-end" wrap="nowrap">
            <TextInput
              label="Link to share"
              value={attempt.data.url}
              readOnly
              style={{ flex: 1 }}
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton value={attempt.data.url}>
              {({ copied, copy }) => (
                <Button
                  variant={copied ? 'light' : 'filled'}
                  color={copied ? 'teal' : undefined}
                  onClick={copy}
                >
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          </Group>
        </>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Close
        </Button>
      </Group>
    </Stack>
  );
}
