import { apiPaths, type AssistExecuteParams } from '@postern/contracts';
import type { z } from 'zod';
import { socketScheme, type SocketOrigin } from '../console/tty/terminalUrl';
import type { WebSocketLike } from '../console/tty/ttyTypes';

/**
 * The assistant's two sockets (the chat, and the run of a command) share their start: the
 * bearer in the first frame, then `{type:'ready'}`, then JSON frames. This is that part, free
 * of React; assistChatSocket.ts and commandRun.ts read the frames.
 */

/** What the sockets need from the browser; tests pass a fake socket and a fixed id. */
export interface AssistDeps {
  createSocket: (url: string) => WebSocketLike;
  /** The bearer, read when a socket opens (it is renewed during the session). */
  token: () => string | undefined;
  origin: SocketOrigin;
  /** A run's id (a UUID): the server files the run's results and recordings under it. */
  newExecutionId: () => string;
}

export function chatSocketUrl(origin: SocketOrigin, clusterId: string, conversationId: string) {
  const path = apiPaths.assistChat(clusterId);
  return `${socketScheme(origin.protocol)}://${origin.host}${path}?conversation_id=${encodeURIComponent(conversationId)}`;
}

export function executeSocketUrl(
  origin: SocketOrigin,
  clusterId: string,
  params: AssistExecuteParams,
) {
  const path = apiPaths.assistExecute(clusterId);
  const query = `params=${encodeURIComponent(JSON.stringify(params))}`;
  return `${socketScheme(origin.protocol)}://${origin.host}${path}?${query}`;
}

/** A frame before it is known to be one the socket's schema allows (the start's frames). */
type RawFrame = { type: string } & Record<string, unknown>;

export interface FrameSocketHandlers<Frame> {
  onReady(): void;
  /** A frame after `ready`, as the socket's schema (in contracts) has it; others are dropped. */
  onFrame(frame: Frame): void;
  /** The server turned the socket down (or there is no bearer to offer): it is over. */
  onRefused(message: string): void;
  /** The server or the network closed the socket; never called after `close()`. */
  onLost(reason: string): void;
}

const normalClosure = 1000;

export class FrameSocket<Frame extends { type: string }> {
  private socket: WebSocketLike | undefined;
  private ready = false;
  /** Set once the socket has been reported as over, so a close that follows says nothing. */
  private over = false;

  constructor(
    private readonly deps: AssistDeps,
    private readonly url: string,
    private readonly frames: z.ZodType<Frame>,
    private readonly handlers: FrameSocketHandlers<Frame>,
  ) {}

  open(): void {
    const token = this.deps.token();
    if (!token) {
      this.refuse('You are not signed in.');
      return;
    }
    const socket = this.deps.createSocket(this.url);
    this.socket = socket;
    socket.onopen = () => socket.send(JSON.stringify({ token }));
    socket.onmessage = (event) => this.receive(event.data);
    socket.onerror = () => {
      // The close event follows, with what there is to say.
    };
    socket.onclose = (event) => {
      if (this.over) return;
      this.over = true;
      this.handlers.onLost(event.reason);
    };
  }

  /** Sends a frame; false when the socket is not (or no longer) ready for one. */
  send(frame: object): boolean {
    if (!this.ready || this.over || !this.socket) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  /** Ends the socket from our side: nothing more is reported. */
  close(): void {
    this.over = true;
    this.socket?.close(normalClosure);
  }

  private receive(data: unknown): void {
    if (this.over || typeof data !== 'string') return;
    const frame = parseFrame(data);
    if (!frame) return;
    if (frame.type === 'create_session_response') {
      if (frame.status !== 'ok') this.refuse(textOf(frame.message, 'The server refused.'));
      return;
    }
    if (!this.ready) {
      if (frame.type === 'ready') {
        this.ready = true;
        this.handlers.onReady();
      } else if (frame.type === 'error') {
        this.refuse(textOf(frame.message, 'The server refused.'));
      }
      return;
    }
    const parsed = this.frames.safeParse(frame);
    if (parsed.success) this.handlers.onFrame(parsed.data);
  }

  private refuse(message: string): void {
    this.close();
    this.handlers.onRefused(message);
  }
}

function parseFrame(data: string): RawFrame | undefined {
  try {
    const value: unknown = JSON.parse(data);
    const isFrame =
      typeof value === 'object' && value !== null && typeof (value as RawFrame).type === 'string';
    return isFrame ? (value as RawFrame) : undefined;
  } catch {
    return undefined;
  }
}

/** A frame's text field, or the fallback when it has none. */
export const textOf = (value: unknown, fallback = ''): string =>
  typeof value === 'string' && value !== '' ? value : fallback;
