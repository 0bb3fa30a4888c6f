import {
  apiPaths,
  assistChatQuerySchema,
  assistClientFrameSchema,
  assistExecuteParamsSchema,
  type AssistExecuteFrame,
  type AssistServerFrame,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { lockMessage } from '../../../access-control/locks/lock-watcher.js';
import { ApiError } from '../../../errors.js';
import { SessionMfa } from '../../../identity/mfa/session-mfa.js';
import {
  identifyByCredentials,
  sessionCookieName,
  webSessionMarks,
  type GuardDeps,
  type Identity,
} from '../../../http/request-identity.js';
import { authenticateFirstFrame } from '../../../modules/terminal/socket-auth.js';
import { keepAlive } from '../../../websocket/keep-alive.js';
import {
  assertUnmoderated,
  requesterOf,
  type TerminalService,
} from '../terminal/terminal.service.js';
import type { AssistService } from './assist.service.js';
import { CommandRun } from './command-run.js';
import { inBandSocketRoute } from '../../../http/in-band-socket.js';

export interface AssistSocketsOptions {
  assist: AssistService;
  terminals: Pick<TerminalService, 'start'>;
  guard: Pick<GuardDeps, 'sessions' | 'access' | 'locks'>;
  clusterName: string;
  pingIntervalMs: number;
}

/** Policy violation: not signed in, no right, a lock, a bad request. */
const refusedCode = 1008;
const closeReason = (text: string) => Buffer.from(text).subarray(0, 120).toString();

/**
 * JSON frames on a socket: `send` drops a frame once the socket is closing; `refuse` tells why in
 * an `error` frame and closes with 1008.
 */
function framesOn<Frame extends { type: string }>(socket: WebSocket) {
  const send = (frame: Frame | { type: 'error'; message: string }) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  };
  const refuse = (message: string) => {
    send({ type: 'error', message });
    socket.close(refusedCode, closeReason(message));
  };
  return { send, refuse };
}

type Upgrade = FastifyRequest<{
  Params: { clusterId: string };
  Querystring: Record<string, string>;
}>;

/**
 * The assistant's two sockets (spec §7: "assistant per cluster", "assistant command execute").
 * As every socket here, the upgrade is public and the caller proves itself in-band (the
 * upgrade's cookie and the bearer of the first frame), so no token is ever in a URL.
 */
export async function assistSockets(app: FastifyInstance, options: AssistSocketsOptions) {
  const upgrade = (
    pattern: string,
    serve: (socket: WebSocket, request: Upgrade) => Promise<void>,
  ) =>
    app.get<{ Params: { clusterId: string }; Querystring: Record<string, string> }>(
      pattern,
      inBandSocketRoute(options.clusterName),
      (socket, request) => {
        const alive = keepAlive(socket, options.pingIntervalMs);
        socket.once('close', () => alive.stop());
        serve(socket, request).catch((error: unknown) => {
          request.log.error({ err: error }, 'assistant socket failed');
          socket.close(1011, 'internal error');
        });
      },
    );
  upgrade(apiPaths.patterns.assistChat, (socket, request) => serveChat(options, socket, request));
  upgrade(apiPaths.patterns.assistExecute, (socket, request) =>
    serveExecute(options, socket, request),
  );
}

/** The caller, once proven, allowed (`create` on the assistant) and not locked; or undefined. */
async function admitted(
  options: AssistSocketsOptions,
  socket: WebSocket,
  request: Upgrade,
  refuse: (message: string) => void,
): Promise<Identity | undefined> {
  const cookie = request.cookies[sessionCookieName];
  const caller = await authenticateFirstFrame(socket, (bearer) =>
    identifyByCredentials(options.guard, cookie, bearer),
  );
  if (!caller) return undefined;
  const refusal = refusalOf(options, caller.identity);
  if (refusal) return void refuse(refusal);
  if (!options.assist.enabled) return void refuse('the assistant is not set up on this cluster');
  return caller.identity;
}

/** Why the caller may not talk to the assistant now, if they may not. */
function refusalOf(options: AssistSocketsOptions, identity: Identity): string | undefined {
  const lock = options.guard.locks.lockFor({
    user: identity.user,
    roles: identity.roles,
    ...webSessionMarks(identity),
  });
  if (lock) return `locked: ${lockMessage(lock)}`;
  if (Date.parse(identity.session.expires) <= Date.now()) return 'your session has expired';
  if (!identity.acl.assist.create) return 'access denied: create on assist is not allowed';
  return undefined;
}

async function serveChat(options: AssistSocketsOptions, socket: WebSocket, request: Upgrade) {
  const { send, refuse } = framesOn<AssistServerFrame>(socket);
  const identity = await admitted(options, socket, request, refuse);
  if (!identity) return;
  const query = assistChatQuerySchema.safeParse(request.query);
  if (!query.success) return refuse(`conversation_id: ${query.error.issues[0]?.message}`);
  const conversationId = query.data.conversation_id;
  try {
    await options.assist.owned(identity.user, conversationId);
  } catch (error) {
    if (error instanceof ApiError) return refuse(error.message);
    throw error;
  }
  const caller = { user: identity.user, roleSet: identity.roleSet };
  const aborts = new AbortController();
  socket.once('close', () => aborts.abort());
  let busy = false;
  socket.on('message', (data, isBinary) => {
    const frame = isBinary ? undefined : parseFrame(String(data));
    if (!frame) return send({ type: 'error', message: 'send {"type":"user_message","text":…}' });
    if (!frame.success) return send({ type: 'error', message: frame.error });
    if (busy) return send({ type: 'error', message: 'wait for the answer before you write again' });
    // Each message is judged again: a lock or an expiry ends the conversation's socket.
    const refusal = refusalOf(options, identity);
    if (refusal) return refuse(refusal);
    busy = true;
    options.assist
      .turn(caller, conversationId, frame.text, send, aborts.signal)
      .catch((error: unknown) => {
        if (error instanceof ApiError) return send({ type: 'error', message: error.message });
        request.log.error({ err: error }, 'assistant turn failed');
        send({ type: 'error', message: 'the assistant failed: try again' });
      })
      .finally(() => {
        busy = false;
        send({ type: 'done' });
      });
  });
  send({ type: 'ready' });
}

function parseFrame(text: string) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const frame = assistClientFrameSchema.safeParse(json);
  return frame.success
    ? { success: true as const, text: frame.data.text }
    : { success: false as const, error: frame.error.issues[0]?.message ?? 'bad frame' };
}

async function serveExecute(options: AssistSocketsOptions, socket: WebSocket, request: Upgrade) {
  const { send, refuse } = framesOn<AssistExecuteFrame>(socket);
  const identity = await admitted(options, socket, request, refuse);
  if (!identity) return;
  const params = parsedParams(request.query.params);
  if (!params.success) return refuse(params.error);
  const { assist } = options;
  const requester = requesterOf(identity);
  try {
    await assist.owned(identity.user, params.data.conversation_id);
    assertUnmoderated(requester, 'running a command from the assistant');
  } catch (error) {
    if (error instanceof ApiError) return refuse(error.message);
    throw error;
  }
  if (SessionMfa.requiredFor(identity)) {
    return refuse('your roles ask for MFA at each session: run the command in a terminal instead');
  }
  const run = new CommandRun({ terminals: options.terminals }, requester, params.data, request.ip);
  socket.once('close', () => run.stop('the run was closed in the console'));
  send({ type: 'ready' });
  const conversationId = params.data.conversation_id;
  const results = await run.run({
    output: (node_id, data) => send({ type: 'output', node_id, data }),
    result: (result) => send({ type: 'result', result }),
  });
  for (const result of results) await assist.addResult(identity.user, conversationId, result);
  // A run closed in the console keeps its results; nobody waits for a summary of them.
  if (socket.readyState !== socket.OPEN) return;
  const caller = { user: identity.user, roleSet: identity.roleSet };
  const { execution_id, command } = params.data;
  const summary = await assist.summarize(caller, conversationId, execution_id, command);
  if (summary) send({ type: 'summary', message: summary });
  send({ type: 'done' });
  socket.close(1000, 'done');
}

function parsedParams(text: string | undefined) {
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch {
    return { success: false as const, error: 'params: must be JSON' };
  }
  const parsed = assistExecuteParamsSchema.safeParse(json);
  if (parsed.success) return parsed;
  const issue = parsed.error.issues[0];
  return {
    success: false as const,
    error: `${issue?.path.join('.') || 'params'}: ${issue?.message}`,
  };
}
