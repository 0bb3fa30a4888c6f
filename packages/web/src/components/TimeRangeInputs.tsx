import { Select } from '@mantine/core';
import { DateTimeField } from './DateTimeField';
import { presetLabels, type RangePreset, type TimeRangeFilter } from './timeRange';

interface Props {
  value: TimeRangeFilter;
  onChange: (range: TimeRangeFilter) => void;
}

const presetChoices = Object.entries(presetLabels).map(([value, label]) => ({ value, label }));

/**
 * The preset choice, and From/To once the preset is custom. A fragment, so it lines up inside
 * the caller's own row of filters.
 */
export function TimeRangeInputs({ value, onChange }: Props) {
  const set = (change: Partial<TimeRangeFilter>) => onChange({ ...value, ...change });
  return (
    <>
      <Select
        label="Time range"
        data={presetChoices}
        value={value.preset}
        onChange={(preset) => preset && set({ preset: preset as RangePreset })}
        allowDeselect={false}
        w={170}
      />
      {value.preset === 'custom' && (
        <>
          <DateTimeField
            label="From"
            value={value.customFrom}
            onChange={(customFrom) => set({ customFrom })}
          />
          <DateTimeField
            label="To"
            value={value.customTo}
            onChange={(customTo) => set({ customTo })}
            error={value.customFrom >= value.customTo ? 'Must be after From' : undefined}
          />
        </>
      )}
    </>
  );
}
