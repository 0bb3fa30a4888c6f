import { Stack, Title } from '@mantine/core';
import type { RecordingRow } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import type { Attempt } from '../../lib/attempt';
import { RecordingsFilters, type RecordingsFilter } from './RecordingsFilters';
import { RecordingsTable } from './RecordingsTable';

interface Props {
  filter: RecordingsFilter;
  onFilterChange: (filter: RecordingsFilter) => void;
  /** Undefined while the custom range is incomplete: nothing is searched. */
  attempt: Attempt<RecordingRow[]> | undefined;
  onRetry: () => void;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  /** The player's path for a playable row. */
  playHref: (row: RecordingRow) => string;
}

/** Session Recordings: the sessions that ended in a time range, searched on the server. */
export function RecordingsView(props: Props) {
  const { filter, onFilterChange, attempt, onRetry } = props;
  return (
    <Stack gap="md">
      <Title order={2}>Session Recordings</Title>
      <RecordingsFilters filter={filter} onChange={onFilterChange} />
      {attempt ? (
        <AttemptView attempt={attempt} onRetry={onRetry}>
          {(rows) => (
            <RecordingsTable
              // A new search starts again at its first page, in the server's order.
              key={JSON.stringify(filter)}
              rows={rows}
              hasMore={props.hasMore}
              loadingMore={props.loadingMore}
              onLoadMore={props.onLoadMore}
              playHref={props.playHref}
            />
          )}
        </AttemptView>
      ) : null}
    </Stack>
  );
}
