import { Group, MultiSelect } from '@mantine/core';
import type { AuditTypeFamily } from '@postern/contracts';
import { useMemo } from 'react';
import { SearchInput } from '../../components/SearchInput';
import { TimeRangeInputs } from '../../components/TimeRangeInputs';
import type { AuditFilter } from './auditRange';

interface Props {
  filter: AuditFilter;
  onChange: (filter: AuditFilter) => void;
  /** The choices of the type filter: the event types Postern emits, by family. */
  typeFamilies: readonly AuditTypeFamily[];
}

/** Range, event types and text: every one of them is applied by the server, over the range. */
export function AuditFilters({ filter, onChange, typeFamilies }: Props) {
  const typeChoices = useMemo(
    () =>
      typeFamilies.map(({ family, types }) => ({
        group: family,
        items: types.map(({ type, label }) => ({ value: type, label })),
      })),
    [typeFamilies],
  );
  const set = (change: Partial<AuditFilter>) => onChange({ ...filter, ...change });
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <TimeRangeInputs value={filter} onChange={set} />
      <MultiSelect
        label="Event types"
        placeholder={filter.types.length ? undefined : 'All types'}
        data={typeChoices}
        value={filter.types}
        onChange={(types) => set({ types })}
        searchable
        clearable
        miw={220}
        maw={420}
      />
      <SearchInput
        label="Search events"
        placeholder="Search events"
        value={filter.search}
        onSearch={(search) => set({ search })}
      />
    </Group>
  );
}
