import type { RecordSessionMode } from '@postern/contracts';
import type { RecordingPolicy } from '../../../modules/sessions/session-recording.js';
import { Utf8Boundary } from '../../../modules/sessions/utf8-boundary.js';
import { SessionRecorder } from '../../../modules/recordings/session-recorder.js';
import type { ProxiedChannel } from './proxied-channel.js';

/**
 * The recording of a command run without a terminal (`ssh node cmd`): its stdout and stderr as
 * the asciicast's output, in the same files as a terminal session's (docs/recordings.md), with no
 * keyframes (there is no screen to take them from). The Session Recordings list shows it as
 * 'non-interactive'; it can be downloaded. A storage failure follows the policy: fail closed
 * ends the command, fail open goes on unrecorded.
 */
export class CommandRecording {
  error = '';
  private readonly recorder: SessionRecorder;
  private readonly stdout = new Utf8Boundary();
  private readonly stderr = new Utf8Boundary();

  private constructor(
    recorder: SessionRecorder,
    private readonly participants: string[],
  ) {
    this.recorder = recorder;
  }

  /** Undefined when the role says record_session off, or when there is no recordings storage. */
  static start(
    proxied: ProxiedChannel,
    command: string,
    policy: RecordingPolicy | undefined,
    mode: RecordSessionMode,
    onFailure: (reason: string, endCommand: boolean) => void,
  ): CommandRecording | undefined {
    if (!policy || mode === 'off') return undefined;
    const endCommand = mode === 'strict' || policy.onFailure !== 'fail_open';
    let recording: CommandRecording | undefined;
    const failed = (reason: string) =>
      setImmediate(() => {
        if (recording) recording.error = reason;
        onFailure(reason, endCommand);
      });
    try {
      const { node, login } = proxied.reach;
      const recorder = new SessionRecorder(
        policy.store.create(proxied.sid),
        {
          width: 80,
          height: 24,
          start: proxied.started,
          term: 'xterm-256color',
          title: `${login}@${node.hostname}: ${command}`,
        },
        { now: proxied.now, onFailure: failed },
      );
      recording = new CommandRecording(recorder, [proxied.requester.user]);
      return recording;
    } catch (error) {
      failed(error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  stdoutData(chunk: Buffer): void {
    this.recorder.output(this.stdout.push(chunk));
  }

  stderrData(chunk: Buffer): void {
    this.recorder.output(this.stderr.push(chunk));
  }

  close(): Promise<void> {
    this.recorder.output(this.stdout.flush());
    this.recorder.output(this.stderr.flush());
    return this.recorder.close(this.participants);
  }
}
