import { EventEmitter } from 'node:events';
import {
  SshSessionChannel,
  type SshChannel,
  type SshClient,
} from '../../ssh/ssh-session-channel.js';
import type { LiveSessionInit } from './live-session.js';

/**
 * A fake ssh2 channel: the node's side of a session as the SSH adapter sees it, driven by the
 * test (it emits data, exit and close as ssh2 does).
 */
export class FakeChannel extends EventEmitter {
  stderr = new EventEmitter();
  written: string[] = [];
  paused = false;
  window: [number, number] | undefined;
  closed = false;
  write(data: string) {
    this.written.push(data);
    return true;
  }
  pause() {
    this.paused = true;
    return this;
  }
  resume() {
    this.paused = false;
    return this;
  }
  setWindow(rows: number, cols: number) {
    this.window = [cols, rows];
  }
  close() {
    this.closed = true;
  }
}

/**
 * alice as root on web-1 at 80×24, for an hour from `now`: an SSH session whose adapter runs
 * over the given fake channel and a fake client connection.
 */
export function testSessionInit(
  channel: FakeChannel,
  now: number,
  overrides: Partial<LiveSessionInit> = {},
): LiveSessionInit {
  return {
    owner: { user: 'alice', roles: ['access'] },
    login: 'root',
    node: { id: 'n1', hostname: 'web-1', addr: '127.0.0.21:22' },
    clusterName: 'c',
    proxyId: 'p',
    traceId: '',
    kind: 'ssh',
    terminal: { w: 80, h: 24 },
    command: '',
    expiresAt: now + 3_600_000,
    idleTimeoutMs: 0,
    channel: new SshSessionChannel(
      Object.assign(new EventEmitter(), { end: () => undefined }) as unknown as SshClient,
      channel as unknown as SshChannel,
    ),
    ...overrides,
  };
}
