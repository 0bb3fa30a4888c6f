import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../test/render';
import { parseTypedDateTime } from './DateTimeField';
import { TimeRangeInputs } from './TimeRangeInputs';
import type { TimeRangeFilter } from './timeRange';

describe('parseTypedDateTime', () => {
  it('reads 24-hour text as a local date-time', () => {
    expect(parseTypedDateTime('2024-05-01 18:30')).toBe('2024-05-01T18:30');
    expect(parseTypedDateTime(' 2024-05-01 7:05 ')).toBe('2024-05-01T07:05');
    expect(parseTypedDateTime('2024-05-01T00:00')).toBe('2024-05-01T00:00');
  });

  it.each(['2024-05-01 6:30 PM', '2024-02-30 10:00', '2024-05-01 24:00', '01/05/2024 10:00', ''])(
    'refuses %j',
    (text) => expect(parseTypedDateTime(text)).toBeUndefined(),
  );
});

describe('TimeRangeInputs custom range', () => {
  const range: TimeRangeFilter = {
    preset: 'custom',
    customFrom: '2024-05-01T08:00',
    customTo: '2024-05-02T20:15',
  };

  it('shows both ends in 24-hour time and reports a typed end once it is whole', async () => {
    const onChange = vi.fn();
    renderWithTheme(<TimeRangeInputs value={range} onChange={onChange} />);
    const from = screen.getByLabelText('From') as HTMLInputElement;
    expect(from.value).toBe('2024-05-01 08:00');
    expect((screen.getByLabelText('To') as HTMLInputElement).value).toBe('2024-05-02 20:15');
    const user = userEvent.setup();
    await user.clear(from);
    await user.type(from, '2024-05-01 18:3');
    expect(onChange).not.toHaveBeenCalled();
    expect(screen.getByText('Use YYYY-MM-DD HH:mm (24-hour)')).toBeTruthy();
    await user.type(from, '0');
    expect(onChange).toHaveBeenLastCalledWith({ ...range, customFrom: '2024-05-01T18:30' });
  });
});
