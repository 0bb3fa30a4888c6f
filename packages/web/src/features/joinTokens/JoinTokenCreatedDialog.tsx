import { internalResourceIdLabel, type JoinTokenJson } from '@postern/contracts';
import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Code,
  Group,
  List,
  Modal,
  Stack,
  Text,
} from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { NavigationBlocker } from '../../app/NavigationBlocker';
import { routePath } from '../../app/routes';
import { CopyableCommand } from '../../components/connect/CopyableCommand';
import { LabelChips } from '../../components/LabelChips';
import { RoleBadges } from '../../components/RoleBadges';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import type { ProxyAddress } from '../nodes/NodesView';
import { agentFlags, joinTokenCommands } from './joinTokenCommands';
import { expiresText } from './joinTokenForm';

export interface JoinTokenCreatedDialogProps {
  /** The token just created, its secret in `id`; the dialog is open while there is one. */
  created: JoinTokenJson | null;
  proxy: ProxyAddress;
  now: number;
  onClose: () => void;
}

/**
 * The new token, shown this once (the server keeps only its hash), with the commands that use it:
 * the same ones Enroll New Resource writes. Closing it by clicking outside is off: the secret
 * would be gone with one stray click.
 */
export function JoinTokenCreatedDialog(props: JoinTokenCreatedDialogProps) {
  const { created, onClose } = props;
  return (
    <Modal
      opened={created !== null}
      onClose={onClose}
      title="Join token created"
      size="xl"
      centered
      closeOnClickOutside={false}
    >
      {created && <CreatedBody {...props} created={created} />}
    </Modal>
  );
}

function CreatedBody({
  created,
  proxy,
  now,
  onClose,
}: JoinTokenCreatedDialogProps & { created: JoinTokenJson }) {
  const [selfSigned, setSelfSigned] = useState(false);
  const token = created.id;
  const expiry = parseTimestamp(created.expiry);
  const commands = joinTokenCommands({ roles: created.roles, token, proxy, selfSigned });
  const flags = agentFlags(created.roles);
  const labels = created.suggestedLabels.filter((label) => label.name !== internalResourceIdLabel);
  return (
    <Stack gap="md">
      <NavigationBlocker
        when
        title="Leave without the token?"
        message="The join token is shown only now: once you leave, it cannot be shown again."
      />
      <Alert color="yellow" title="Copy the token now">
        <Text size="sm">
          It will not be shown again: the server keeps only its hash. Anyone holding it can join a
          host to the cluster until it expires or is deleted.
        </Text>
      </Alert>
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Join token
        </Text>
        <CopyableCommand command={token} label="Join token" copyLabel="Copy token" />
        <Text size="sm" c="dimmed">
          Expires{' '}
          {expiry ? `${expiresText(expiry, now)}, at ${formatDateTime(expiry)}` : created.expiry}.
        </Text>
        <Group gap="xs">
          <RoleBadges roles={created.roles} />
          <LabelChips labels={labels} />
        </Group>
      </Stack>
      <Checkbox
        label="The proxy uses its self-signed certificate (the default install): have curl and the agent accept it"
        checked={selfSigned}
        onChange={(event) => setSelfSigned(event.currentTarget.checked)}
      />
      {commands.map((each) => (
        <Stack key={each.id} gap={4}>
          <Text size="sm">{each.title}:</Text>
          <CopyableCommand
            command={each.command}
            label={each.id === 'agent' ? 'Agent command' : 'OpenSSH install command'}
          />
        </Stack>
      ))}
      {flags.length > 0 && (
        <Stack gap={4}>
          <Text size="sm">The agent serves its host&apos;s SSH; to serve more, add to it:</Text>
          <List size="sm" spacing={2}>
            {flags.map((each) => (
              <List.Item key={each.flag}>
                <Code>{each.flag}</Code> for {each.what}
              </List.Item>
            ))}
          </List>
          <Text size="sm" c="dimmed">
            <Anchor component={Link} to={routePath('discover')} size="sm">
              Enroll New Resource
            </Anchor>{' '}
            writes the whole command for one app, database, Kubernetes cluster or desktop, with a
            token of its own.
          </Text>
        </Stack>
      )}
      <Group justify="flex-end">
        <Button onClick={onClose}>Done</Button>
      </Group>
    </Stack>
  );
}
