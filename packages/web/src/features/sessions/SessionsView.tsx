import { Badge, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { ParticipantMode, SessionKind } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import { ChoiceMenu } from '../../components/ChoiceMenu';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import type { Attempt } from '../../lib/attempt';
import type { ActiveSession } from './makeSession';

interface Props {
  attempt: Attempt<ActiveSession[]>;
  onRetry: () => void;
  /** The console path that joins a session in a mode; undefined when joining is off. */
  joinHref?: (session: ActiveSession, mode: ParticipantMode) => string;
}

export const kindLabels: Record<SessionKind, string> = {
  ssh: 'SSH',
  k8s: 'Kubernetes',
  db: 'Database',
  app: 'Application',
  desktop: 'Desktop',
};

const kindGlyphs: Record<SessionKind, string> = {
  ssh: '>_',
  k8s: 'K8s',
  db: 'DB',
  app: 'App',
  desktop: 'RDP',
};

export const modeLabels: Record<ParticipantMode, string> = {
  observer: 'As an observer (read-only)',
  moderator: 'As a moderator',
  peer: 'As a peer (full input)',
};

export function SessionKindIcon({ kind }: { kind: SessionKind }) {
  return (
    <ThemeIcon variant="light" size="lg" role="img" aria-label={`${kindLabels[kind]} session`}>
      <Text ff="monospace" fz="xs" fw={600} aria-hidden>
        {kindGlyphs[kind]}
      </Text>
    </ThemeIcon>
  );
}

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
          <Text size="sm">{s.resourceName}</Text>
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
      sortValue: (s) => s.users.join(', '),
      sortable: true,
      render: (s) => (
        <Group gap={4}>
          {s.users.map((user) => (
            <Badge key={user} variant="light" tt="none">
              {user}
            </Badge>
          ))}
        </Group>
      ),
    },
    {
      key: 'createdText',
      header: 'Created',
      sortable: true,
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
