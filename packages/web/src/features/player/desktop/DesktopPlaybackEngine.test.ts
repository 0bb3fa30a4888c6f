import type { DesktopRecordingEvent } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../test/fakeClock';
import { FakeSocket, fakeSockets } from '../../console/tty/fakeSocket';
import { frameClock } from '../fakePlayback';
import { DesktopPlaybackEngine } from './DesktopPlaybackEngine';

function setUp(durationMs = 60_000) {
  const clock = createFakeClock();
  const sockets = fakeSockets();
  const drawn: DesktopRecordingEvent[] = [];
  const engine = new DesktopPlaybackEngine(
    { durationMs },
    {
      openSocket: () => sockets.create('ws://proxy/desktopplayback'),
      token: () => 'bearer-1',
      draw: (event) => drawn.push(event),
      clock: frameClock(clock),
    },
  );
  const actions = () =>
    sockets.last.sent.slice(1).map((frame) => JSON.parse(frame as string) as unknown);
  const frame = (message: unknown) => sockets.last.receiveText(JSON.stringify({ message }));
  return { clock, sockets, drawn, engine, actions, frame };
}

describe('DesktopPlaybackEngine', () => {
  it('sends the bearer first, then plays on the clock and draws what the server sends', async () => {
    const { clock, sockets, drawn, engine, frame } = setUp();
    engine.start();
    expect(engine.getState().status).toBe('loading');
    sockets.last.open();
    expect(sockets.last.sent).toEqual([JSON.stringify({ token: 'bearer-1' })]);
    sockets.last.accept();
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 0 });
    frame({ type: 'screen', ms: 0, width: 1280, height: 800 });
    frame({ type: 'clipboard', ms: 10, direction: 'out', bytes: 5 });
    expect(drawn.map((event) => event.type)).toEqual(['screen', 'clipboard']);
    await clock.advance(2000);
    expect(engine.getState().timeMs).toBeGreaterThanOrEqual(1984);
    // Frames that are not the protocol's are ignored.
    sockets.last.receiveText('{"message":{"type":"rect"}}');
    expect(drawn).toHaveLength(2);
  });

  it('pauses, plays, changes speed and seeks through the server', async () => {
    const { clock, sockets, engine, actions } = setUp();
    engine.start();
    sockets.last.accept();
    await clock.advance(1000);
    engine.pause();
    const paused = engine.getState().timeMs;
    await clock.advance(5000);
    expect(engine.getState()).toMatchObject({ status: 'paused', timeMs: paused });
    engine.setSpeed(4);
    engine.play();
    await clock.advance(1000);
    expect(engine.getState().timeMs).toBeGreaterThanOrEqual(paused + 3900);
    engine.seek(30_000);
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 30_000 });
    engine.seekBy(-5000);
    engine.seek(99_999); // clamped to the end
    expect(actions()).toEqual([
      { action: 'play/pause' },
      { action: 'speed', speed: 4 },
      { action: 'play/pause' },
      { action: 'seek', pos: 30_000 },
      { action: 'seek', pos: 25_000 },
      { action: 'seek', pos: 60_000 },
    ]);
  });

  it('ends at "end", then seeks paused or plays again from the start', async () => {
    const { clock, sockets, engine, actions, frame } = setUp(3000);
    engine.start();
    sockets.last.accept();
    await clock.advance(1000);
    frame({ type: 'end', ms: 3200 });
    frame('end');
    expect(engine.getState()).toMatchObject({ status: 'ended', timeMs: 3200, durationMs: 3200 });
    // Play after the end: the server starts over.
    engine.play();
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 0 });
    frame('end');
    // A seek after the end: paused there, as the server is.
    engine.seek(1000);
    expect(engine.getState()).toMatchObject({ status: 'paused', timeMs: 1000 });
    engine.play();
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 1000 });
    expect(actions()).toEqual([
      { action: 'play/pause' },
      { action: 'seek', pos: 1000 },
      { action: 'play/pause' },
    ]);
  });

  it('says why it was refused, and a retry connects again where the timeline was', async () => {
    const { sockets, engine } = setUp();
    engine.start();
    sockets.last.open();
    sockets.last.receiveText(
      JSON.stringify({ type: 'create_session_response', status: 'error', message: 'not found' }),
    );
    expect(engine.getState()).toMatchObject({ status: 'error', error: 'not found' });
    expect(sockets.last.readyState).toBe(FakeSocket.CLOSED);

    engine.seek(12_000); // not connected: only the timeline moves
    engine.play();
    expect(sockets.sockets).toHaveLength(2);
    sockets.last.accept();
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 12_000 });
    expect(JSON.parse(sockets.last.sent[1] as string)).toEqual({ action: 'seek', pos: 12_000 });
  });

  it('stops with the reason when the server fails or the socket drops', async () => {
    const { sockets, engine, frame } = setUp();
    engine.start();
    sockets.last.accept();
    frame('error');
    expect(engine.getState().status).toBe('playing'); // malformed: no errorText
    sockets.last.receiveText(JSON.stringify({ message: 'error', errorText: 'damaged here' }));
    expect(engine.getState()).toMatchObject({ status: 'error', error: 'damaged here' });
    engine.play();
    sockets.last.accept();
    sockets.last.serverClose(1006, '');
    expect(engine.getState()).toMatchObject({
      status: 'error',
      error: 'the connection to the proxy was lost',
    });
  });

  it('starts paused when paused before the server answers', () => {
    const { sockets, engine, actions } = setUp();
    engine.start();
    engine.pause();
    sockets.last.accept();
    expect(engine.getState().status).toBe('paused');
    expect(actions()).toEqual([{ action: 'play/pause' }]);
    engine.dispose();
    expect(sockets.last.readyState).toBe(FakeSocket.CLOSED);
  });
});
