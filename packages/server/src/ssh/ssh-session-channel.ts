import { sessionEndReasons } from '@postern/contracts';
import type { Client, ClientChannel } from 'ssh2';
import type { ChannelEvents, SessionChannel } from '../modules/sessions/session-channel.js';

/** The ssh2 types the adapter wraps (tests build them from fakes without importing ssh2). */
export type SshClient = Client;
export type SshChannel = ClientChannel;

/**
 * A live session's channel over SSH: a session channel (shell or exec, with a pty) of an ssh2
 * client connection to the node. The session owns both: closing it ends the connection too.
 */
export class SshSessionChannel implements SessionChannel {
  /** Set when the connection to the node was lost rather than closed. */
  private lostReason: string | undefined;

  constructor(
    private readonly client: SshClient,
    private readonly channel: SshChannel,
  ) {}

  start(events: ChannelEvents): void {
    const { channel, client } = this;
    channel.on('data', (chunk: Buffer) => events.output(chunk));
    channel.stderr.on('data', (chunk: Buffer) => events.output(chunk));
    channel.on('exit', (code: number | null, signal?: string) => events.exit({ code, signal }));
    channel.on('close', () => events.closed(this.lostReason));
    // ssh2 reports missed keepalives as an error just before it drops the connection.
    client.on('error', (error: Error & { level?: string }) => {
      if (error.level === 'client-timeout') this.lostReason = sessionEndReasons.serverUnresponsive;
    });
    client.on('close', () => events.closed(this.lostReason ?? 'connection to the server closed'));
  }

  write(data: string | Uint8Array): boolean {
    return this.channel.write(data);
  }

  pause(): void {
    this.channel.pause();
  }

  resume(): void {
    this.channel.resume();
  }

  resize(w: number, h: number): void {
    this.channel.setWindow(h, w, 0, 0);
  }

  signal(name: string): void {
    this.channel.signal(name);
  }

  close(): void {
    this.channel.close();
    this.client.end();
  }

  /** Read from the socket and not yet taken by the session, stdout and stderr together. */
  heldBytes(): number {
    return this.channel.readableLength + this.channel.stderr.readableLength;
  }
}
