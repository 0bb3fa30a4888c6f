import {
  assistClientFrameSchema,
  assistServerFrameSchema,
  type AssistMessage,
  type AssistServerFrame,
} from '@postern/contracts';
import { chatSocketUrl, FrameSocket, textOf, type AssistDeps } from './assistSocket';
import { StateStore } from './stateStore';

/** `lost`: closed by the server or the network; `refused`: the server would not have it. */
export type ChatConnection = 'connecting' | 'ready' | 'refused' | 'lost';

export interface ChatState {
  connection: ChatConnection;
  /** Why the socket was refused or lost. */
  problem?: string;
  /** The messages this socket brought, in order (the stored ones are read over REST). */
  messages: AssistMessage[];
  /** The answer written so far, until its message comes. */
  partial?: string;
  /** What the assistant is doing meanwhile. */
  progress?: string;
  /** From the user's message to `done`: the input waits. */
  turnRunning: boolean;
  /** The socket's own complaint (a bad frame, a turn already running). */
  error?: string;
}

export const initialChatState: ChatState = {
  connection: 'connecting',
  messages: [],
  turnRunning: false,
};

export interface AssistChatOptions {
  deps: AssistDeps;
  clusterId: string;
  conversationId: string;
  /** The conversation's title changed (its first message names it). */
  onTitle: (title: string) => void;
}

const turnOver = { turnRunning: false, partial: undefined, progress: undefined };

/** One conversation's chat socket (docs/assist.md): the user's messages out, the turn's frames in. */
export class AssistChat extends StateStore<ChatState> {
  private socket: FrameSocket<AssistServerFrame> | undefined;
  private disposed = false;

  constructor(private readonly options: AssistChatOptions) {
    super(initialChatState);
  }

  connect(): void {
    if (this.disposed) return;
    this.socket?.close();
    const { deps, clusterId, conversationId } = this.options;
    const url = chatSocketUrl(deps.origin, clusterId, conversationId);
    const socket = new FrameSocket(deps, url, assistServerFrameSchema, {
      onReady: () => this.update({ connection: 'ready' }),
      onFrame: (frame) => this.receive(frame),
      onRefused: (problem) => this.update({ connection: 'refused', problem, ...turnOver }),
      onLost: (reason) =>
        this.update({
          connection: 'lost',
          problem: reason
            ? `The connection to the assistant closed: ${reason}`
            : 'The connection to the assistant closed.',
          ...turnOver,
        }),
    });
    this.socket = socket;
    this.update({ connection: 'connecting', problem: undefined, error: undefined, ...turnOver });
    socket.open();
  }

  /**
   * A new socket after a lost one. What came over the old one is dropped: the page reads the
   * stored messages again, which hold it (and what the server finished meanwhile).
   */
  reconnect(): void {
    this.update({ messages: [] });
    this.connect();
  }

  /** Sends the user's message; false when it cannot go now (not ready, a turn running, empty). */
  send(text: string): boolean {
    const { connection, turnRunning } = this.state;
    if (connection !== 'ready' || turnRunning) return false;
    const frame = assistClientFrameSchema.safeParse({ type: 'user_message', text });
    if (!frame.success || !this.socket?.send(frame.data)) return false;
    this.update({ turnRunning: true, error: undefined, partial: undefined, progress: undefined });
    return true;
  }

  dispose(): void {
    this.disposed = true;
    this.socket?.close();
  }

  private receive(frame: AssistServerFrame): void {
    switch (frame.type) {
      case 'message': {
        const message = frame.message;
        // Anything but the user's own echo is (or ends) the answer the partial stood for.
        const answered = message.type !== 'CHAT_MESSAGE_USER';
        this.update({
          messages: [...this.state.messages, message],
          ...(answered ? { partial: undefined } : {}),
        });
        return;
      }
      case 'partial':
        this.update({ partial: frame.content });
        return;
      case 'progress':
        this.update({ progress: frame.text });
        return;
      case 'title':
        this.options.onTitle(frame.title);
        return;
      case 'done':
        this.update(turnOver);
        return;
      case 'error':
        // The server says nothing more after a refused message: the input must not wait for it.
        this.update({ error: textOf(frame.message, 'The assistant failed.'), ...turnOver });
        return;
    }
  }
}
