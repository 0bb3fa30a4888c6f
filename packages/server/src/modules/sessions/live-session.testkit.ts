import { EventEmitter } from 'node:events';
import type { Client, ClientChannel } from 'ssh2';
import type { LiveSessionInit } from './live-session.js';

/** A fake SSH channel: the session's view of the node, driven by the test. */
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

/** alice as root on web-1 at 80×24, over the given fake channel, for an hour from `now`. */
export function testSessionInit(
  channel: FakeChannel,
  now: number,
  overrides: Partial<LiveSessionInit> = {},
): LiveSessionInit {
  return {
    owner: { user: 'alice', roles: ['access'] },
    login: 'root',
    node: { id: 'n1', hostname: 'web-1', addr: '10.0.0.1:22' },
    clusterName: 'c',
    proxyId: 'p',
    traceId: '',
    size: { w: 80, h: 24 },
    command: '',
    expiresAt: now + 3_600_000,
    idleTimeoutMs: 0,
    client: Object.assign(new EventEmitter(), { end: () => undefined }) as unknown as Client,
    channel: channel as unknown as ClientChannel,
    ...overrides,
  };
}
