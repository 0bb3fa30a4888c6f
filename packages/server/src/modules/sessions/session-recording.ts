import type { RecordSessionMode, TerminalSize } from '@postern/contracts';
import type { RecordingStore } from '../recordings/recording-store.js';
import { SessionRecorder } from '../recordings/session-recorder.js';
import type { LiveSessionDeps, LiveSessionInit } from './live-session-init.js';
import type { ScreenMirror } from './screen-mirror.js';

export interface RecordingPolicy {
  store: RecordingStore;
  /** What a storage failure does unless record_session is strict (which always ends). */
  onFailure: 'fail_closed' | 'fail_open';
}

/** A keyframe at most this often, and only after output: a player seeks from the nearest one. */
export const keyframeEveryMs = 5_000;
/**
 * And after this much output, so a seek into a flood replays at most this much past its
 * keyframe (xterm.js parses it in well under 100 ms).
 */
export const keyframeEveryBytes = 4 * 1024 * 1024;

export interface SessionRecordingOptions {
  sid: string;
  policy: RecordingPolicy;
  mode: RecordSessionMode;
  size: { w: number; h: number };
  start: number;
  title: string;
  now: () => number;
  mirror: ScreenMirror;
  /** The recording failed; `endSession` says whether the policy ends the session for it. */
  onFailure: (reason: string, endSession: boolean) => void;
  /** The recording caught up with its backlog: the session may resume a paused channel. */
  onDrain: () => void;
}

/**
 * One live session's recording: the recorder (asciicast + keyframes, see docs/recordings.md),
 * when to take keyframes from the screen mirror, and what a failure means under the policy.
 * LiveSession feeds it output and sizes and asks it whether the disk is behind.
 */
export class SessionRecording {
  error = '';
  /** Settles once the recording is sealed (or has failed). */
  done: Promise<void> = Promise.resolve();
  private lastKeyframe: number;
  private outputSinceKeyframe = 0;
  private size: { w: number; h: number };

  private constructor(
    private readonly recorder: SessionRecorder,
    private readonly options: SessionRecordingOptions,
  ) {
    this.lastKeyframe = options.start;
    this.size = { ...options.size };
  }

  /** Starts recording, or undefined when it cannot (the failure is reported asynchronously). */
  static start(options: SessionRecordingOptions): SessionRecording | undefined {
    let recording: SessionRecording | undefined;
    const endSession = options.mode === 'strict' || options.policy.onFailure !== 'fail_open';
    // Failures arrive later (the file opens asynchronously), never inside a constructor.
    const onFailure = (reason: string) =>
      setImmediate(() => {
        if (recording?.error) return;
        if (recording) recording.error = reason;
        options.onFailure(reason, endSession);
      });
    try {
      const recorder = new SessionRecorder(
        options.policy.store.create(options.sid),
        {
          width: options.size.w,
          height: options.size.h,
          start: options.start,
          term: 'xterm-256color',
          title: options.title,
        },
        { now: options.now, onFailure, onDrain: options.onDrain },
      );
      recording = new SessionRecording(recorder, options);
      return recording;
    } catch (error) {
      onFailure(error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  /** The disk is far behind: the session pauses its channel like for a slow party. */
  get behind(): boolean {
    return this.recorder.behind;
  }

  output(data: Uint8Array): void {
    this.recorder.output(data);
    this.outputSinceKeyframe += data.length;
    if (this.outputSinceKeyframe >= keyframeEveryBytes) this.keyframe(this.options.now());
  }

  resize(w: number, h: number): void {
    this.recorder.resize(w, h);
    this.size = { w, h };
  }

  /** A party joined (not the owner, who starts the session). */
  join(user: string, mode: string): void {
    this.recorder.join(user, mode);
  }

  /** Called about once a second: stores the screen when a keyframe is due. */
  tick(now: number): void {
    if (this.outputSinceKeyframe === 0 || now - this.lastKeyframe < keyframeEveryMs) return;
    this.keyframe(now);
  }

  private keyframe(now: number): void {
    this.lastKeyframe = now;
    this.outputSinceKeyframe = 0;
    const at = this.recorder.position();
    const frozen = { ...this.size };
    // The mirror's snapshot reflects exactly the output written before this call.
    void this.options.mirror.snapshot(this.options.sid).then((screen) => {
      if (screen) this.recorder.keyframe(at, frozen, screen);
    });
  }

  close(participants: string[], endedAt: number): Promise<void> {
    this.done = this.recorder.close(participants, endedAt);
    return this.done;
  }
}

/** A terminal session's recording under the role's record_session mode, unless it is off. */
export function startTerminalRecording(
  sid: string,
  init: LiveSessionInit,
  deps: LiveSessionDeps,
  options: Pick<SessionRecordingOptions, 'start' | 'onFailure' | 'onDrain'> & {
    size: TerminalSize;
  },
): SessionRecording | undefined {
  const mode = init.recordSession ?? 'best_effort';
  if (!deps.recordings || mode === 'off') return undefined;
  return SessionRecording.start({
    ...options,
    sid,
    policy: deps.recordings,
    mode,
    title: `${init.login}@${init.node.hostname}${init.command ? `: ${init.command}` : ''}`,
    now: deps.now,
    mirror: deps.mirror,
  });
}
