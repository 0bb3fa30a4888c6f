import { MantineProvider, Transition } from '@mantine/core';
import { act, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appTheme } from './theme';

/** The system's motion preference, as `matchMedia` reports it to Mantine. */
function preferReducedMotion(reduce: boolean) {
  const real = window.matchMedia;
  vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => ({
    ...real(query),
    matches: reduce && query.includes('prefers-reduced-motion: reduce'),
  }));
}

/** A 300 ms transition in the app's theme (not Mantine's test mode), opened once mounted. */
function openTransition() {
  const entered = vi.fn();
  const view = (mounted: boolean) => (
    <MantineProvider theme={appTheme}>
      <Transition mounted={mounted} transition="fade" duration={300} onEntered={entered}>
        {(styles) => <div style={styles}>menu</div>}
      </Transition>
    </MantineProvider>
  );
  const { rerender } = render(view(false));
  act(() => rerender(view(true)));
  return entered;
}

describe('the theme and motion', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('opens menus and modals at once for someone whose system asks for less motion', () => {
    preferReducedMotion(true);
    expect(openTransition()).toHaveBeenCalledTimes(1);
  });

  it('keeps the animation for everyone else', () => {
    vi.useFakeTimers();
    preferReducedMotion(false);
    const entered = openTransition();
    expect(entered).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1000));
    expect(entered).toHaveBeenCalledTimes(1);
  });
});
