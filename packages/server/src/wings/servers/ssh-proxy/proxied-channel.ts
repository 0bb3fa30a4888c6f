import { randomUUID } from 'node:crypto';
import type { Requester, Reach } from '../terminal/terminal.service.js';

/** One channel an SSH client opened through the proxy, for the audit events it causes. */
export class ProxiedChannel {
  readonly sid = randomUUID();
  readonly started: number;

  constructor(
    readonly requester: Requester,
    readonly reach: Reach,
    readonly remoteAddr: string,
    readonly now: () => number,
  ) {
    this.started = now();
  }

  /** The fields every event of this channel carries (the same shape as live sessions'). */
  fields() {
    const { node, login } = this.reach;
    return {
      sid: this.sid,
      user: this.requester.user,
      login,
      server_id: node.id,
      server_hostname: node.hostname,
      server_addr: node.addr,
      proto: 'ssh',
      namespace: 'default',
      'addr.remote': this.remoteAddr,
    };
  }

  /** session.end fields of a non-interactive session. */
  endFields(reason: string, recorded: boolean, recordingError = '') {
    return {
      ...this.fields(),
      reason,
      participants: [this.requester.user],
      interactive: false,
      session_start: new Date(this.started).toISOString(),
      session_stop: new Date(this.now()).toISOString(),
      session_recording: recorded ? 'on' : 'off',
      ...(recordingError ? { session_recording_error: recordingError } : {}),
    };
  }
}
