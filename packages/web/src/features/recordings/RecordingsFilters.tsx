import { Group } from '@mantine/core';
import { SearchInput } from '../../components/SearchInput';
import type { TimeRangeFilter } from '../../components/timeRange';
import { TimeRangeInputs } from '../../components/TimeRangeInputs';

export interface RecordingsFilter extends TimeRangeFilter {
  /** Free text the server matches against each session end event. */
  search: string;
}

interface Props {
  filter: RecordingsFilter;
  onChange: (filter: RecordingsFilter) => void;
}

/**
 * Range and text, both applied by the server over the whole range: a search finds recordings
 * beyond the 5000 loaded so far.
 */
export function RecordingsFilters({ filter, onChange }: Props) {
  const set = (change: Partial<RecordingsFilter>) => onChange({ ...filter, ...change });
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <TimeRangeInputs value={filter} onChange={set} />
      <SearchInput
        label="Search recordings"
        placeholder="Search by host, user or session ID"
        value={filter.search}
        onSearch={(search) => set({ search })}
      />
    </Group>
  );
}
