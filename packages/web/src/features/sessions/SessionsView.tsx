import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import type { ParticipantMode } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import { ChoiceMenu } from '../../components/ChoiceMenu';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import { SessionKindIcon } from '../../components/SessionKindIcon';
import type { Attempt } from '../../lib/attempt';
import type { ActiveSession } from './makeSession';

interface Props {
  attempt: Attempt<ActiveSession[]>;
  onRetry: () => void;
  /** The console path that joins a session in a mode; undefined when joining is off. */
  joinHref?: (session: ActiveSession, mode: ParticipantMode) => string;
}

export const modeLabels: Record<ParticipantMode, string> = {
  observer: 'As an observer (read-only)',
  moderator: 'As a moderator',
  peer: 'As a peer (full input)',
};

/** Active Sessions: what is live now, who is in it, and a way to join when allowed. */
export function SessionsView({ attempt, onRetry, joinHref }: Props) {
  const columns: Column<ActiveSession>[] = [
    {
      key: 'kind',
      header: 'Type',
      sortable: true,
      render: (s) => <SessionKindIcon kind={s.kind} />,
    },
    {
      key: 'resourceName',
      header: 'Resource',
      sortable: true,
      render: (s) => (
        <Stack gap={0}>
          <Group gap={6} wrap="nowrap">
            <Text size="sm">{s.resourceName}</Text>
            {/* Moderated sessions (require_session_join): moderators watch over them. */}
            {s.moderated && (
              <Badge color="orange" variant="light" tt="none">
                Moderated
              </Badge>
            )}
          </Group>
          {s.addr && (
            <Text size="xs" c="dimmed">
              {s.addr}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'login', header: 'Login', sortable: true },
    {
      key: 'users',
      header: 'Users',
      visibleFrom: 'sm',
      sortValue: (s) => s.users.join(', '),
      sortable: true,
      render: (s) => (
        <Group gap={4}>
          {s.users.map((user) => {
            // The session waits for this user's client to resume it (docs/protocol.md §6.1).
            const lost = s.connectionLost.includes(user);
            return (
              <Badge
                key={user}
                variant={lost ? 'outline' : 'light'}
                color={lost ? 'gray' : undefined}
                tt="none"
                title={lost ? "The session waits for this user's client to resume it" : undefined}
              >
                {lost ? `${user}: connection lost` : user}
              </Badge>
            );
          })}
        </Group>
      ),
    },
    {
      key: 'createdText',
      header: 'Created',
      sortable: true,
      visibleFrom: 'sm',
      sortValue: (s) => s.created?.getTime() ?? 0,
    },
    {
      key: 'durationText',
      header: 'Duration',
      sortable: true,
      sortValue: (s) => -(s.created?.getTime() ?? 0),
    },
    ...(joinHref
      ? [
          {
            key: 'join',
            header: 'Actions',
            fit: true,
            render: (s: ActiveSession) => (
              <ChoiceMenu
                label="Join"
                ariaLabel={`Join session on ${s.resourceName}`}
                heading="Join"
                choices={s.participantModes.map((mode) => ({
                  label: modeLabels[mode],
                  href: joinHref(s, mode),
                  newTab: true,
                }))}
              />
            ),
          },
        ]
      : []),
  ];
  return (
    <Stack gap="md">
      <Title order={2}>Active Sessions</Title>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(sessions) => (
          <ResourceTable
            columns={columns}
            rows={sessions}
            rowKey={(s) => s.sid}
            emptyText="No active sessions"
          />
        )}
      </AttemptView>
    </Stack>
  );
}
