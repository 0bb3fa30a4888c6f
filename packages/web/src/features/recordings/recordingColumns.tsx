import { Button, Text } from '@mantine/core';
import type { RecordingRow } from '@postern/contracts';
import { Link } from 'react-router';
import type { Column } from '../../components/ResourceTable';
import { SessionKindIcon } from '../../components/SessionKindIcon';
import { formatDateTime } from '../../lib/format';

/**
 * The columns of the recordings table. Playable rows get a Play link to the player (spec §4);
 * the others show why they cannot be played.
 */
export function recordingColumns(playHref: (row: RecordingRow) => string): Column<RecordingRow>[] {
  return [
    {
      key: 'recordingType',
      header: 'Type',
      render: (row) => <SessionKindIcon kind={row.recordingType} />,
    },
    {
      key: 'description',
      header: 'Description',
      // The player's path needs the session id; an event from an old version may lack it.
      render: (row) =>
        row.playable && row.sid ? (
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
        ),
    },
    { key: 'users', header: 'Users' },
    { key: 'hostname', header: 'Hostname' },
    {
      key: 'createdDate',
      header: 'Created',
      sortable: true,
      sortValue: (row) => row.createdDate.getTime(),
      render: (row) => formatDateTime(row.createdDate),
    },
    {
      key: 'duration',
      header: 'Duration',
      sortable: true,
      sortValue: (row) => row.duration,
      render: (row) => row.durationText,
    },
  ];
}
