import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { RecordingMark } from '@postern/contracts';
import { createRef } from 'react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import type { PlaybackState } from './playbackTypes';
import type { PlaybackControls } from './useEngineState';
import { PlayerView } from './PlayerView';

const playingAt12s: PlaybackState = {
  status: 'playing',
  timeMs: 12_400,
  durationMs: 60_000,
  speed: 1,
  skipIdle: true,
};

function fakeControls(): PlaybackControls {
  return {
    play: vi.fn(),
    pause: vi.fn(),
    toggle: vi.fn(),
    seek: vi.fn(),
    seekBy: vi.fn(),
    setSpeed: vi.fn(),
    setSkipIdle: vi.fn(),
  };
}

const marks: RecordingMark[] = [
  { t: 15, kind: 'join', label: 'bob joined (observer)' },
  { t: 30, kind: 'resize', label: '120x40' },
];

function renderView(state: Partial<PlaybackState> = {}, extra: { incomplete?: boolean } = {}) {
  const controls = fakeControls();
  const onDownload = vi.fn();
  const view = (next: Partial<PlaybackState>) => (
    <MemoryRouter>
      <PlayerView
        title="alice@db-1"
        sid="sid-1"
        backHref="/web/cluster/one/recordings"
        incomplete={extra.incomplete ?? false}
        state={{ ...playingAt12s, ...next }}
        controls={controls}
        marks={marks}
        terminalRef={createRef()}
        onDownload={onDownload}
        downloading={false}
      />
    </MemoryRouter>
  );
  const rendered = renderWithTheme(view(state));
  return {
    controls,
    onDownload,
    rerender: (next: Partial<PlaybackState>) => rendered.rerender(view(next)),
  };
}

const slider = () => screen.getByRole('slider', { name: 'Playback position' });
const timeText = () => screen.getByTestId('player-time').textContent;

describe('PlayerView', () => {
  it('shows the title, the way back, the time and the playing state', () => {
    const { controls } = renderView();
    expect(screen.getByRole('heading', { name: 'alice@db-1' })).toBeTruthy();
    expect(screen.getByRole('link', { name: '← Recordings' }).getAttribute('href')).toBe(
      '/web/cluster/one/recordings',
    );
    expect(timeText()).toBe('00:12 / 01:00');
    expect((slider() as HTMLInputElement).value).toBe('12400');
    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(controls.pause).toHaveBeenCalled();
  });

  it('offers Play when paused or ended', () => {
    const { controls, rerender } = renderView({ status: 'paused' });
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    rerender({ status: 'ended', timeMs: 60_000 });
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    expect(controls.play).toHaveBeenCalledTimes(2);
    expect(timeText()).toBe('01:00 / 01:00');
  });

  it('keeps the dragged position while dragging and seeks when let go', () => {
    const { controls, rerender } = renderView();
    fireEvent.input(slider(), { target: { value: '30000' } });
    // The playback moves on underneath: the thumb and the time stay where the user holds them.
    rerender({ timeMs: 13_400 });
    expect((slider() as HTMLInputElement).value).toBe('30000');
    expect(timeText()).toBe('00:30 / 01:00');
    expect(controls.seek).not.toHaveBeenCalled();

    fireEvent.change(slider(), { target: { value: '30000' } });
    expect(controls.seek).toHaveBeenCalledWith(30_000);
    rerender({ timeMs: 30_000 });
    expect(timeText()).toBe('00:30 / 01:00');
  });

  it('changes the speed, skip idle, and downloads the cast', async () => {
    const user = userEvent.setup();
    const { controls, onDownload } = renderView();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Playback speed' }), '4×');
    expect(controls.setSpeed).toHaveBeenCalledWith(4);
    const skipIdle = screen.getByRole('checkbox', { name: 'Skip idle' });
    expect((skipIdle as HTMLInputElement).checked).toBe(true);
    await user.click(skipIdle);
    expect(controls.setSkipIdle).toHaveBeenCalledWith(false);
    await user.click(screen.getByRole('button', { name: 'Download .cast' }));
    expect(onDownload).toHaveBeenCalled();
  });

  it('marks joins and resizes on the timeline, and seeks to one when it is clicked', async () => {
    const user = userEvent.setup();
    const { controls } = renderView();
    const markers = within(screen.getByRole('group', { name: 'Timeline markers' }));
    const join = markers.getByRole('button', { name: 'bob joined (observer) at 00:15' });
    const resize = markers.getByRole('button', { name: 'Resized to 120x40 at 00:30' });
    // A quarter and a half of the minute along the track (inside the thumb's travel).
    expect(join.style.left).toMatch(/\b0\.25\b/);
    expect(resize.style.left).toMatch(/\b0\.5\b/);
    expect(join.style.background).toBe('var(--mantine-color-teal-filled)');
    await user.click(resize);
    expect(controls.seek).toHaveBeenCalledWith(30_000);
  });

  it('draws the timeline in the theme colour', () => {
    renderView();
    expect(slider().style.accentColor).toBe('var(--mantine-primary-color-filled)');
  });

  it('puts the player element in fullscreen, and says how to leave', async () => {
    const user = userEvent.setup();
    renderView();
    const player = screen.getByTestId('player');
    let fullscreenElement: Element | null = null;
    Object.defineProperty(document, 'fullscreenElement', {
      configurable: true,
      get: () => fullscreenElement,
    });
    player.requestFullscreen = vi.fn(async () => {
      fullscreenElement = player;
      document.dispatchEvent(new Event('fullscreenchange'));
    });
    await user.click(screen.getByRole('button', { name: 'Fullscreen' }));
    expect(player.requestFullscreen).toHaveBeenCalled();
    expect(await screen.findByRole('button', { name: 'Exit fullscreen' })).toBeTruthy();
    Reflect.deleteProperty(document, 'fullscreenElement');
  });

  it('plays, pauses and seeks 5 s from the keyboard', async () => {
    const user = userEvent.setup();
    const { controls } = renderView();
    await user.keyboard(' ');
    expect(controls.toggle).toHaveBeenCalledTimes(1);
    await user.keyboard('{ArrowRight}{ArrowLeft}{ArrowLeft}');
    expect(vi.mocked(controls.seekBy).mock.calls).toEqual([[5000], [-5000], [-5000]]);
    // Space on a focused button presses the button; the player does not toggle a second time.
    screen.getByRole('button', { name: 'Pause' }).focus();
    await user.keyboard(' ');
    expect(controls.toggle).toHaveBeenCalledTimes(1);
    expect(controls.pause).toHaveBeenCalledTimes(1);
  });

  it('notes an incomplete recording and shows a failed playback with a retry', () => {
    const { controls } = renderView(
      { status: 'error', error: '503 - unavailable' },
      { incomplete: true },
    );
    expect(screen.getByText(/This recording is incomplete/)).toBeTruthy();
    expect(screen.getByRole('alert', { name: 'Playback stopped' }).textContent).toContain(
      '503 - unavailable',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(controls.play).toHaveBeenCalled();
  });

  it('says where a damaged recording stops, in words', () => {
    renderView({ status: 'ended', timeMs: 83_000, damagedAtMs: 83_400 });
    expect(screen.getByTestId('player-damaged').textContent).toBe(
      'This recording is damaged after 01:23; it plays up to there.',
    );
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
