import { Button, Group, Stack, Title } from '@mantine/core';
import type { AuditEventJson, AuditTypeFamily } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import { ChoiceMenu } from '../../components/ChoiceMenu';
import type { Attempt } from '../../lib/attempt';
import { AuditFilters } from './AuditFilters';
import type { AuditFilter } from './auditRange';
import { AuditTable } from './AuditTable';
import type { ExportFormat } from './exportAudit';

interface Props {
  filter: AuditFilter;
  onFilterChange: (filter: AuditFilter) => void;
  typeFamilies: readonly AuditTypeFamily[];
  /** Undefined while a custom range is incomplete: nothing is searched. */
  attempt: Attempt<AuditEventJson[]> | undefined;
  onRetry: () => void;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  onExport: (format: ExportFormat) => void;
  exporting: boolean;
  /** The player's path for a session's recording; absent when the user may not read them. */
  recordingHref?: (sid: string) => string;
}

/** Audit Log: every event of a time range, searched and filtered on the server. */
export function AuditView(props: Props) {
  const { filter, onFilterChange, typeFamilies, attempt, onRetry, onExport, exporting } = props;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Audit Log</Title>
        {exporting ? (
          <Button variant="default" loading>
            Exporting
          </Button>
        ) : (
          <ChoiceMenu
            label="Export"
            ariaLabel="Export the events of this range"
            heading="Export all events of the range as"
            choices={[
              { label: 'JSON lines', onSelect: () => onExport('jsonl') },
              { label: 'CSV', onSelect: () => onExport('csv') },
            ]}
          />
        )}
      </Group>
      <AuditFilters filter={filter} onChange={onFilterChange} typeFamilies={typeFamilies} />
      {attempt ? (
        <AttemptView attempt={attempt} onRetry={onRetry}>
          {(events) => (
            <AuditTable
              // A new search starts again at its first page.
              key={JSON.stringify(filter)}
              events={events}
              hasMore={props.hasMore}
              loadingMore={props.loadingMore}
              onLoadMore={props.onLoadMore}
              recordingHref={props.recordingHref}
            />
          )}
        </AttemptView>
      ) : null}
    </Stack>
  );
}
