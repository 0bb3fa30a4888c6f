import { Group, Stack, Text } from '@mantine/core';
import type { AssistConnection } from '@postern/contracts';
import { useLoginsHelp } from '../nodes/useLoginsHelp';
import { makeResource, resourceDetail } from '../resources/makeResource';
import { ResourceAction } from '../resources/ResourceAction';
import { resourceKinds } from '../resources/resourceKinds';
import { AssistantBubble } from './AssistantBubble';

/**
 * A resource the assistant offers to connect to, with the Resources page's own Connect for its
 * kind: the user chooses the login, database user or command there. The resource is as it was
 * listed when proposed; Connect asks the server again, so one gone since fails there, plainly.
 */
export function ConnectionCard({
  connection,
  clusterId,
}: {
  connection: AssistConnection;
  clusterId: string;
}) {
  const loginsHelp = useLoginsHelp(true);
  const resource = makeResource(connection.resource);
  const kind = resourceKinds[resource.kind];
  const detail = resourceDetail(resource);
  return (
    <AssistantBubble>
      <Group
        justify="space-between"
        wrap="nowrap"
        gap="md"
        role="group"
        aria-label={`${kind.label} ${resource.name}`}
      >
        <Group gap="sm" wrap="nowrap">
          <kind.icon size={20} aria-hidden />
          <Stack gap={0}>
            <Text size="sm" fw={600}>
              {resource.name}
            </Text>
            <Text size="xs" c="dimmed">
              {detail.type === 'tunnel' ? kind.label : `${kind.label} · ${detail.text}`}
            </Text>
          </Stack>
        </Group>
        <ResourceAction
          resource={resource}
          clusterId={clusterId}
          leaf={undefined}
          loginsHelp={loginsHelp}
        />
      </Group>
    </AssistantBubble>
  );
}
