import {
  assistResultMaxChars,
  type AssistCommandResult,
  type AssistExecuteParams,
  type ParticipantMode,
} from '@postern/contracts';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../errors.js';
import type { LiveSession } from '../../../modules/sessions/live-session.js';
import type { EndKind, Party } from '../../../modules/sessions/party.js';
import type { Requester, StartRequest, TerminalService } from '../terminal/terminal.service.js';

export interface CommandRunDeps {
  terminals: Pick<TerminalService, 'start'>;
  /** Waits before another try when the user's open rate is spent (tests pass a shorter one). */
  sleep?: (ms: number) => Promise<void>;
}

export interface RunOutput {
  output(nodeId: string, text: string): void;
  result(result: AssistCommandResult): void;
}

/** Servers a run opens at once; the rest wait for one to finish. */
const parallel = 10;
/** How long a server may run the command before the run ends it. */
const runLimitMs = 10 * 60_000;
/** Tries when the user's open rate (session_open_limit) is spent, one a second. */
const openTries = 60;
/** A terminal wide enough that most output keeps its lines. */
const size = { w: 160, h: 48 };

/**
 * Runs a command the user chose, as the login, on each server: each is a session of the user's
 * own, opened through the terminal's rules (RBAC, locks, per-session MFA, moderation, recording,
 * audit), so the assistant can do nothing the user could not do in a terminal. Output streams
 * to `out` as each server prints it.
 */
export class CommandRun {
  private readonly sessions = new Set<LiveSession>();
  private stopped = false;

  constructor(
    private readonly deps: CommandRunDeps,
    private readonly requester: Requester,
    private readonly params: AssistExecuteParams,
    private readonly remoteAddr: string,
  ) {}

  async run(out: RunOutput): Promise<AssistCommandResult[]> {
    const queue = [...new Set(this.params.node_ids)];
    const results: AssistCommandResult[] = [];
    const worker = async () => {
      for (let nodeId = queue.shift(); nodeId !== undefined; nodeId = queue.shift()) {
        const result = await this.runOn(nodeId, out);
        results.push(result);
        out.result(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
    return results;
  }

  /** Ends every session still running (the user closed the run). */
  stop(reason: string): void {
    this.stopped = true;
    for (const session of this.sessions) session.terminate(reason);
  }

  private async runOn(nodeId: string, out: RunOutput): Promise<AssistCommandResult> {
    const base = { execution_id: this.params.execution_id, node_id: nodeId, node_name: nodeId };
    if (this.stopped) return { ...base, output: '', error: 'the run was stopped' };
    let session: LiveSession;
    try {
      session = await this.open(nodeId);
    } catch (error) {
      const message = error instanceof ApiError ? error.message : 'the command could not start';
      return { ...base, output: '', error: message };
    }
    this.sessions.add(session);
    const tracker = session.toTracker();
    const collected = new CollectingParty(this.requester, (text) => out.output(nodeId, text));
    const limit = setTimeout(
      () => session.terminate(`the command ran longer than ${runLimitMs / 60_000} minutes`),
      runLimitMs,
    );
    // Acknowledging what the party took keeps the session's output flowing (flow control).
    collected.ack = (bytes) => session.ack(collected.id, bytes);
    try {
      await session.join(collected);
      const ending = await collected.ended;
      const exit = session.exit;
      return {
        ...base,
        node_name: tracker.serverHostname,
        session_id: session.id,
        output: collected.text(),
        ...(collected.truncated ? { truncated: true } : {}),
        ...(exit ? { exit_code: exit.code } : { error: ending }),
      };
    } finally {
      clearTimeout(limit);
      this.sessions.delete(session);
    }
  }

  /** Opens the session, waiting out the user's open rate (many servers open faster than it). */
  private async open(nodeId: string): Promise<LiveSession> {
    const request: StartRequest = {
      serverId: nodeId,
      login: this.params.login,
      command: this.params.command,
      size,
      traceId: '',
      remoteAddr: this.remoteAddr,
    };
    const sleep = this.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.terminals.start(this.requester, request);
      } catch (error) {
        const spent = error instanceof ApiError && error.code === 'limit_exceeded';
        if (!spent || attempt >= openTries || this.stopped) throw error;
        await sleep(1000);
      }
    }
  }
}

/**
 * The run's party in one server's session: it takes the output as text without terminal
 * escapes, keeps the end of it, and acknowledges what it took so the session never waits for it.
 */
class CollectingParty implements Party {
  readonly id = randomUUID();
  readonly user: string;
  readonly roles: readonly string[];
  readonly mode: ParticipantMode = 'peer';
  readonly mfaDevice: string | undefined;
  readonly accessRequests: readonly string[] | undefined;
  ack: (bytes: number) => void = () => undefined;
  readonly ended: Promise<string>;
  private finish!: (reason: string) => void;
  private kept = '';
  /** Whether the start of the output was dropped to keep its end. */
  truncated = false;
  private readonly decoder = new TextDecoder();

  constructor(
    requester: Requester,
    private readonly onText: (text: string) => void,
  ) {
    this.user = requester.user;
    this.roles = requester.roles;
    this.mfaDevice = requester.mfaDevice;
    this.accessRequests = requester.accessRequests;
    this.ended = new Promise((resolve) => (this.finish = resolve));
  }

  output(chunk: Uint8Array): void {
    const text = plainText(this.decoder.decode(chunk, { stream: true }));
    this.ack(chunk.byteLength);
    if (!text) return;
    const all = this.kept + text;
    if (all.length > assistResultMaxChars) this.truncated = true;
    this.kept = all.slice(-assistResultMaxChars);
    this.onText(text);
  }

  text(): string {
    return this.kept;
  }

  event(): void {}
  sessionData(): void {}

  end(reason: string, _kind?: EndKind): void {
    this.finish(reason);
  }
}

// CSI sequences (colours, cursor moves), OSC sequences (titles), other two-byte escapes, and the
// carriage returns a terminal puts before each newline.
const escapes =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]|\r/g;

/** Output as a person reads it in a log, without the terminal's control sequences. */
export function plainText(text: string): string {
  return text.replace(escapes, '');
}
