import {
  assistExecuteFrameSchema,
  assistExecuteParamsSchema,
  assistResultMaxChars,
  type AssistCommandResult,
  type AssistExecuteFrame,
  type AssistMessage,
  type AssistServerRef,
} from '@postern/contracts';
import { executeSocketUrl, FrameSocket, textOf, type AssistDeps } from './assistSocket';
import { StateStore } from './stateStore';

/** One server's part of a run: what it printed so far, and how it ended. */
export interface ServerRun {
  id: string;
  hostname: string;
  output: string;
  result?: AssistCommandResult;
}

export type RunStatus = 'idle' | 'connecting' | 'running' | 'done' | 'failed';

export interface RunState {
  status: RunStatus;
  servers: ServerRun[];
  /** The COMMAND_RESULT_SUMMARY message, when the model has read the results. */
  summary?: AssistMessage;
  /** Why the run could not start or did not finish. */
  problem?: string;
}

export const idleRun: RunState = { status: 'idle', servers: [] };

/** Between Run and the end: no second run of the same card meanwhile. */
export const isRunning = (run: RunState) => run.status === 'connecting' || run.status === 'running';

/** What the user chose on the command's card. */
export interface RunRequest {
  command: string;
  login: string;
  nodes: AssistServerRef[];
}

export interface CommandRunOptions {
  deps: AssistDeps;
  clusterId: string;
  conversationId: string;
}

/**
 * The page keeps this much of a server's output as it streams (the tail): enough to read, not
 * so much a chatty command fills the browser's memory. The recording has all of it.
 */
export const liveOutputMaxChars = 4 * assistResultMaxChars;

const tail = (text: string) =>
  text.length > liveOutputMaxChars ? text.slice(text.length - liveOutputMaxChars) : text;

/** One run of a proposed command (the execute socket): each server's output, then a summary. */
export class CommandRun extends StateStore<RunState> {
  private socket: FrameSocket<AssistExecuteFrame> | undefined;
  private disposed = false;

  constructor(private readonly options: CommandRunOptions) {
    super(idleRun);
  }

  /** Starts the run; the request is checked as the server will check it. */
  start(request: RunRequest): void {
    if (this.disposed || isRunning(this.state)) return;
    const { deps, clusterId, conversationId } = this.options;
    const servers = request.nodes.map((node) => ({
      id: node.id,
      hostname: node.hostname,
      output: '',
    }));
    const params = assistExecuteParamsSchema.safeParse({
      conversation_id: conversationId,
      execution_id: deps.newExecutionId(),
      command: request.command,
      login: request.login,
      node_ids: request.nodes.map((node) => node.id),
    });
    if (!params.success) {
      const problem = params.error.issues[0]?.message ?? 'The command cannot run.';
      this.update({ status: 'failed', servers: [], summary: undefined, problem });
      return;
    }
    const url = executeSocketUrl(deps.origin, clusterId, params.data);
    this.socket = new FrameSocket(deps, url, assistExecuteFrameSchema, {
      onReady: () => this.update({ status: 'running' }),
      onFrame: (frame) => this.receive(frame),
      onRefused: (problem) => this.update({ status: 'failed', problem }),
      onLost: () =>
        this.update({ status: 'failed', problem: 'The connection closed before the run ended.' }),
    });
    this.update({ status: 'connecting', servers, summary: undefined, problem: undefined });
    this.socket.open();
  }

  dispose(): void {
    this.disposed = true;
    this.socket?.close();
  }

  private receive(frame: AssistExecuteFrame): void {
    switch (frame.type) {
      case 'output': {
        const { data } = frame;
        this.changeServer(frame.node_id, (s) => ({ ...s, output: tail(s.output + data) }));
        return;
      }
      case 'result': {
        const { result } = frame;
        this.changeServer(result.node_id, (s) => ({
          ...s,
          hostname: s.hostname || result.node_name,
          // A server that failed before it printed anything still has the server's word on it.
          output: s.output || result.output,
          result,
        }));
        return;
      }
      case 'summary':
        this.update({ summary: frame.message });
        return;
      case 'done':
        this.socket?.close();
        this.update({ status: 'done' });
        return;
      case 'error':
        this.socket?.close();
        this.update({ status: 'failed', problem: textOf(frame.message, 'The run failed.') });
        return;
    }
  }

  /** Changes one server's part; a server the card did not list gets a part of its own. */
  private changeServer(id: string, change: (server: ServerRun) => ServerRun): void {
    const { servers } = this.state;
    const known = servers.some((s) => s.id === id);
    const all = known ? servers : [...servers, { id, hostname: '', output: '' }];
    this.update({ servers: all.map((s) => (s.id === id ? change(s) : s)) });
  }
}
