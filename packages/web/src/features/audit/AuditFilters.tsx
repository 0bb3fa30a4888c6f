import { Group, MultiSelect, Select, TextInput } from '@mantine/core';
import { SearchInput } from '../../components/SearchInput';
import { presetLabels, type AuditFilter, type RangePreset } from './auditRange';

interface Props {
  filter: AuditFilter;
  onChange: (filter: AuditFilter) => void;
  /** The choices of the type filter: the catalogue's event types. */
  eventTypes: readonly string[];
}

const presetChoices = Object.entries(presetLabels).map(([value, label]) => ({ value, label }));

/** Range, event types and text: every one of them is applied by the server, over the range. */
export function AuditFilters({ filter, onChange, eventTypes }: Props) {
  const set = (change: Partial<AuditFilter>) => onChange({ ...filter, ...change });
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <Select
        label="Time range"
        data={presetChoices}
        value={filter.preset}
        onChange={(value) => value && set({ preset: value as RangePreset })}
        allowDeselect={false}
        w={170}
      />
      {filter.preset === 'custom' && (
        <>
          <TextInput
            label="From"
            type="datetime-local"
            value={filter.customFrom}
            onChange={(e) => set({ customFrom: e.currentTarget.value })}
          />
          <TextInput
            label="To"
            type="datetime-local"
            value={filter.customTo}
            onChange={(e) => set({ customTo: e.currentTarget.value })}
            error={filter.customFrom >= filter.customTo ? 'Must be after From' : undefined}
          />
        </>
      )}
      <MultiSelect
        label="Event types"
        placeholder={filter.types.length ? undefined : 'All types'}
        data={[...eventTypes]}
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
