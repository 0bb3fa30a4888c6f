import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../test/render';
import { PageLoader } from './PageLoader';

const spinner = () => document.querySelector('.mantine-Loader-root');

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('PageLoader', () => {
  it('announces the load at once and shows the spinner after the short delay (400 ms)', () => {
    renderWithTheme(<PageLoader label="Loading servers" />);
    expect(screen.getByRole('status', { name: 'Loading servers' })).toBeTruthy();
    act(() => vi.advanceTimersByTime(399));
    expect(spinner()).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(spinner()).not.toBeNull();
  });

  it('waits 600 ms when long, and not at all when none', () => {
    renderWithTheme(<PageLoader delay="long" />);
    act(() => vi.advanceTimersByTime(599));
    expect(spinner()).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(spinner()).not.toBeNull();
  });

  it('shows the spinner at once with no delay', () => {
    renderWithTheme(<PageLoader delay="none" />);
    expect(spinner()).not.toBeNull();
  });
});
