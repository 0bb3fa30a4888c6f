import { Button, Group, Text } from '@mantine/core';
import type { RecordingRow } from '@postern/contracts';
import { Link } from 'react-router';
import type { Column } from '../../components/ResourceTable';
import { SessionKindIcon } from '../../components/SessionKindIcon';
import { formatDateTime, formatDuration } from '../../lib/format';

/** `login@host`, or the host alone when the session has no login (desktops, older events). */
const sessionTarget = (row: RecordingRow) =>
  row.login ? `${row.login}@${row.hostname}` : row.hostname;

/**
 * The columns of the recordings table. Playable rows get a Play link to the player (spec §4);
 * the others show why they cannot be played.
 */
export function recordingColumns(playHref: (row: RecordingRow) => string): Column<RecordingRow>[] {
  return [
    {
      key: 'recordingType',
      header: 'Type',
      fit: true,
      render: (row) => <SessionKindIcon kind={row.recordingType} />,
    },
    {
      key: 'description',
      header: 'Description',
      render: (row) => (
        <Group gap="sm" wrap="nowrap">
          <Text size="sm">{sessionTarget(row)}</Text>
          {/* The player's path needs the session id; an event from an old version may lack it. */}
          {row.playable && row.sid ? (
            <Button
              component={Link}
              to={playHref(row)}
              size="compact-sm"
              variant="light"
              aria-label={`Play recording of ${row.hostname}`}
            >
              Play
            </Button>
          ) : (
            <Text size="sm" c="dimmed">
              {row.description}
            </Text>
          )}
        </Group>
      ),
    },
    // The description says login@host already: on a narrow screen these give way first.
    { key: 'login', header: 'Login', visibleFrom: 'sm' },
    { key: 'users', header: 'Users', visibleFrom: 'sm' },
    { key: 'hostname', header: 'Hostname', visibleFrom: 'sm' },
    {
      key: 'createdDate',
      header: 'Created',
      visibleFrom: 'xs',
      sortable: true,
      sortValue: (row) => row.createdDate.getTime(),
      render: (row) => formatDateTime(row.createdDate),
    },
    {
      key: 'duration',
      header: 'Duration',
      fit: true,
      sortable: true,
      sortValue: (row) => row.duration,
      render: (row) => formatDuration(row.duration),
    },
  ];
}
