import { Anchor, Button, Code, Group, Modal, Text, ThemeIcon } from '@mantine/core';
import type { AuditEventJson, AuditSeverity, FormattedAuditEvent } from '@postern/contracts';
import { formatAuditEvent } from '@postern/contracts';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useLoadedPaging } from '../../components/loadedPaging';
import { Pager } from '../../components/Pager';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import { recordedSessionOf } from './recordingOfEvent';

/** Rows shown per page; the server sends 5000 at a time (spec §9). */
export const auditPageSize = 50;

interface Props {
  events: AuditEventJson[];
  /** The server has more events in the range after the loaded ones. */
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  /** The player's path for a session's recording; absent when the user may not read them. */
  recordingHref?: (sid: string) => string;
}

interface Row extends FormattedAuditEvent {
  key: string;
  raw: AuditEventJson;
  /** The session whose recording the event links to. */
  recordedSid: string | undefined;
}

const severityStyle: Record<AuditSeverity, { color: string; glyph: string; label: string }> = {
  info: { color: 'blue', glyph: 'i', label: 'Info' },
  warning: { color: 'yellow', glyph: '!', label: 'Warning' },
  error: { color: 'red', glyph: '×', label: 'Error' },
};

function timeText(time: string): string {
  const date = parseTimestamp(time);
  return date ? formatDateTime(date) : time;
}

export function SeverityIcon({ severity }: { severity: AuditSeverity }) {
  const { color, glyph, label } = severityStyle[severity];
  return (
    <ThemeIcon color={color} variant="light" radius="xl" size="sm" role="img" aria-label={label}>
      <Text fz="xs" fw={600} aria-hidden>
        {glyph}
      </Text>
    </ThemeIcon>
  );
}

/** The loaded events, 50 to a page; paging past them asks the server for its next 5000. */
export function AuditTable({ events, hasMore, loadingMore, onLoadMore, recordingHref }: Props) {
  const [details, setDetails] = useState<Row | undefined>();
  const rows = useMemo(
    () =>
      events.map((raw, index) => ({
        ...formatAuditEvent(raw),
        key: raw.uid ?? `${raw.time}-${index}`,
        raw,
        recordedSid: recordedSessionOf(raw),
      })),
    [events],
  );
  const { shown, pager } = useLoadedPaging(rows, {
    pageSize: auditPageSize,
    hasMore,
    loadingMore,
    onLoadMore,
  });

  const columns: Column<Row>[] = [
    { key: 'severity', header: 'Level', render: (r) => <SeverityIcon severity={r.severity} /> },
    {
      key: 'codeDesc',
      header: 'Type',
      render: (r) => (
        <Anchor component="button" type="button" fz="sm" onClick={() => setDetails(r)}>
          {r.codeDesc}
        </Anchor>
      ),
    },
    {
      key: 'message',
      header: 'Description',
      render: (r) =>
        recordingHref && r.recordedSid ? (
          <Group gap="xs" wrap="nowrap">
            <Text size="sm">{r.message}</Text>
            <Anchor
              component={Link}
              to={recordingHref(r.recordedSid)}
              size="sm"
              style={{ whiteSpace: 'nowrap' }}
              aria-label={`Play the recording of session ${r.recordedSid}`}
            >
              Play recording
            </Anchor>
          </Group>
        ) : (
          r.message
        ),
    },
    { key: 'user', header: 'User' },
    { key: 'time', header: 'Created', render: (r) => timeText(r.time) },
  ];

  return (
    <>
      <ResourceTable
        columns={columns}
        rows={shown}
        rowKey={(r) => r.key}
        emptyText={loadingMore ? 'Loading more events…' : 'No events in this range'}
      />
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {rows.length} events loaded{hasMore ? ', more in this range' : ''}
        </Text>
        <Pager {...pager} itemsLabel="events" />
      </Group>
      <Modal
        opened={details !== undefined}
        onClose={() => setDetails(undefined)}
        title={details ? `${details.codeDesc} (${details.code})` : ''}
        size="xl"
      >
        {details && (
          <>
            <Code block aria-label="Event JSON">
              {JSON.stringify(details.raw, null, 2)}
            </Code>
            <Group justify="flex-end" mt="md">
              <Button variant="default" onClick={() => setDetails(undefined)}>
                Close
              </Button>
            </Group>
          </>
        )}
      </Modal>
    </>
  );
}
