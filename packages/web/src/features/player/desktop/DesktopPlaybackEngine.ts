import {
  desktopPlaybackFrameSchema,
  type DesktopPlaybackAction,
  type DesktopRecordingEvent,
} from '@postern/contracts';
import type { WebSocketLike } from '../../console/tty/TtyClient';
import type { PlaybackClock, PlaybackSpeed, PlaybackState } from '../playbackTypes';

export interface DesktopPlaybackDeps {
  /** A new playback socket of the recording. */
  openSocket: () => WebSocketLike;
  /** The bearer, sent in the first frame; read at each connection (it is renewed). */
  token: () => string | undefined;
  /** Where events go to be drawn (rectDrawer.ts). */
  draw: (event: DesktopRecordingEvent) => void;
  clock: PlaybackClock;
}

/**
 * Plays a desktop recording from its playback socket (docs/desktops.md, "Recordings"): the
 * server keeps the pace and this engine asks it to (`play/pause`, `speed`, `seek`), draws what
 * it sends, and runs the clock the timeline shows. No React and no DOM: the hook gives it a
 * socket and a drawer.
 */
export class DesktopPlaybackEngine {
  private state: PlaybackState;
  private readonly listeners = new Set<() => void>();
  private socket: WebSocketLike | undefined;
  private ready = false;
  private wantsToPlay = true;
  /** The clock read `pos` at `wall`. */
  private anchor = { wall: 0, pos: 0 };
  private cancelFrame: (() => void) | undefined;
  private disposed = false;

  constructor(
    setup: { durationMs: number },
    private readonly deps: DesktopPlaybackDeps,
  ) {
    this.state = {
      status: 'loading',
      timeMs: 0,
      durationMs: setup.durationMs,
      speed: 1,
      skipIdle: false,
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getState = (): PlaybackState => this.state;

  start(): void {
    this.connect(0);
  }

  play(): void {
    this.wantsToPlay = true;
    const { status, timeMs } = this.state;
    if (status === 'error') return this.connect(timeMs);
    if (status === 'paused' || status === 'ended') {
      // The server plays on, or after the end starts over.
      this.send({ action: 'play/pause' });
      this.run(status === 'ended' ? 0 : timeMs);
    }
  }

  pause(): void {
    this.wantsToPlay = false;
    if (this.state.status !== 'playing') return;
    this.send({ action: 'play/pause' });
    this.halt('paused', this.position());
  }

  toggle(): void {
    if (this.state.status === 'playing') this.pause();
    else this.play();
  }

  seek(ms: number): void {
    const target = Math.min(Math.max(0, ms), this.state.durationMs);
    if (!this.ready) return this.update({ timeMs: target });
    this.send({ action: 'seek', pos: target });
    if (this.state.status === 'playing') this.run(target);
    else this.halt(this.state.status === 'error' ? 'error' : 'paused', target);
  }

  seekBy(deltaMs: number): void {
    this.seek(this.position() + deltaMs);
  }

  setSpeed(speed: PlaybackSpeed): void {
    this.anchor = { wall: this.deps.clock.now(), pos: this.position() };
    this.update({ speed });
    this.send({ action: 'speed', speed });
  }

  /** The server plays in real time: there is no idle to skip. */
  setSkipIdle(): void {}

  dispose(): void {
    this.disposed = true;
    this.stopFrames();
    this.closeSocket();
    this.listeners.clear();
  }

  private connect(startMs: number): void {
    this.closeSocket();
    this.ready = false;
    this.update({ status: 'loading', error: undefined, timeMs: startMs });
    const socket = this.deps.openSocket();
    this.socket = socket;
    socket.onopen = () => socket.send(JSON.stringify({ token: this.deps.token() ?? '' }));
    socket.onmessage = (message) => {
      if (this.socket === socket && typeof message.data === 'string') this.receive(message.data);
    };
    socket.onerror = () => undefined; // the close event follows
    socket.onclose = (event) => {
      if (this.socket !== socket || this.state.status === 'ended') return;
      this.socket = undefined;
      this.fail(event.reason || 'the connection to the proxy was lost');
    };
  }

  private receive(text: string): void {
    const value = parseJson(text);
    if (!this.ready) return this.answered(value);
    const frame = desktopPlaybackFrameSchema.safeParse(value);
    if (!frame.success) return;
    const { message } = frame.data;
    if (message === 'end') return this.halt('ended', this.state.durationMs);
    if (message === 'error')
      return this.fail('errorText' in frame.data ? frame.data.errorText : '');
    if (message.type === 'end' && message.ms > this.state.durationMs) {
      this.update({ durationMs: message.ms });
    }
    this.deps.draw(message);
  }

  /**
   * The answer to the bearer: the server then plays from the start; it is told to go where
   * the timeline is (a retry, or a seek while connecting) and to pause if asked to.
   */
  private answered(value: unknown): void {
    const answer = value as { type?: string; status?: string; message?: string } | undefined;
    if (answer?.type !== 'create_session_response') return;
    if (answer.status !== 'ok') return this.fail(answer.message ?? 'playback refused');
    this.ready = true;
    const startMs = this.state.timeMs;
    if (startMs > 0) this.send({ action: 'seek', pos: startMs });
    if (this.wantsToPlay) this.run(startMs);
    else {
      this.send({ action: 'play/pause' });
      this.halt('paused', startMs);
    }
  }

  private position(): number {
    if (this.state.status !== 'playing') return this.state.timeMs;
    const elapsed = (this.deps.clock.now() - this.anchor.wall) * this.state.speed;
    return Math.min(this.anchor.pos + elapsed, this.state.durationMs);
  }

  private run(fromMs: number): void {
    this.anchor = { wall: this.deps.clock.now(), pos: fromMs };
    this.update({ status: 'playing', timeMs: fromMs });
    this.scheduleFrame();
  }

  private halt(status: 'paused' | 'ended' | 'error', timeMs: number): void {
    this.stopFrames();
    this.update({ status, timeMs });
  }

  private fail(error: string): void {
    this.closeSocket();
    this.ready = false;
    this.stopFrames();
    this.update({ status: 'error', error: error || 'playback failed' });
  }

  private readonly tick = (): void => {
    this.cancelFrame = undefined;
    if (this.state.status !== 'playing') return;
    this.update({ timeMs: this.position() });
    this.scheduleFrame();
  };

  private scheduleFrame(): void {
    if (!this.cancelFrame) this.cancelFrame = this.deps.clock.nextFrame(this.tick);
  }

  private stopFrames(): void {
    this.cancelFrame?.();
    this.cancelFrame = undefined;
  }

  private send(action: DesktopPlaybackAction): void {
    if (this.ready && this.socket?.readyState === 1) this.socket.send(JSON.stringify(action));
  }

  private closeSocket(): void {
    const socket = this.socket;
    this.socket = undefined;
    if (socket && socket.readyState <= 1) socket.close(1000);
  }

  private update(change: Partial<PlaybackState>): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
