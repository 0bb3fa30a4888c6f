import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { LeafSessionGrant } from './leaf-sessions.js';
import { asSocket } from '../../net/post-json.js';
import { sessionCookieName } from '../../http/request-identity.js';
import { answerSession } from '../terminal/socket-auth.js';
import { encodeEnvelope, terminalMessageTypes as T } from '@postern/contracts';
import { RelayedChecks, vouchedAnswer, type RootCheck } from './root-checks.js';

/** The same frame limit the web port's own sockets have. */
const maxPayload = 1024 * 1024;
const acceptor = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false });

export interface SocketRelayOptions {
  /**
   * Checks the first frame's bearer against the root session (with the upgrade's cookie), and
   * returns the leaf's grant for that user, or why not.
   */
  admit(
    bearer: string,
  ): Promise<{ grant: LeafSessionGrant; check: RootCheck } | { refused: string }>;
  dial(): Promise<Duplex>;
  onError(error: unknown): void;
}

/**
 * A console WebSocket (a terminal, an exec, a desktop) for a leaf's resource: the root accepts
 * it, proves the caller by the first frame as its own sockets do (`{"token": bearer, …}`), then
 * opens the same socket on the leaf through the tunnel with the leaf's session, sends the same
 * first frame with the leaf's bearer, and relays every message both ways as it was (text or
 * binary), but for a per-session MFA check of the leaf's, which the root runs with its own
 * devices (root-checks.ts). Closing either side closes the other with the same code.
 */
export function relaySocketToLeaf(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: SocketRelayOptions,
): void {
  acceptor.handleUpgrade(req, socket, head, (client) => {
    const early: { data: RawData; isBinary: boolean }[] = [];
    let upstream: WebSocket | undefined;
    let checks: RelayedChecks | undefined;
    // Refused as the root's own sockets refuse: the first frame's answer, then a policy close.
    const refuse = (reason: string) => {
      answerSession(client, 'error', reason);
      client.close(1008, reason.slice(0, 120));
    };
    client.once('message', (first: RawData, isBinary: boolean) => {
      client.on('message', (data: RawData, binary: boolean) => {
        if (checks?.fromClient(data, binary)) return;
        if (upstream?.readyState === WebSocket.OPEN) upstream.send(data, { binary });
        else early.push({ data, isBinary: binary });
      });
      const frame = isBinary ? undefined : parseJson(first);
      const bearer = typeof frame?.token === 'string' ? frame.token : undefined;
      if (!frame || !bearer) return refuse('not authenticated');
      void connect(frame, bearer).catch((error: unknown) => {
        options.onError(error);
        refuse('the leaf cluster cannot be reached');
      });
    });
    client.on('close', (code, reason) => upstream?.close(sendable(code), reason));
    client.on('error', () => upstream?.terminate());

    async function connect(frame: Record<string, unknown>, bearer: string): Promise<void> {
      const admitted = await options.admit(bearer);
      if ('refused' in admitted) return refuse(admitted.refused);
      let firstFrame: Record<string, unknown> = { ...frame, token: admitted.grant.bearer };
      if (frame.mfa_response !== undefined) {
        const vouched = await vouchedAnswer(req.url, frame.mfa_response, admitted.check);
        if ('refused' in vouched) return refuse(vouched.refused);
        firstFrame = { ...firstFrame, mfa_response: vouched.answer };
      }
      if (client.readyState !== WebSocket.OPEN) return;
      const stream = asSocket(await options.dial());
      checks = new RelayedChecks(admitted.check, {
        toClient: (frame) => client.send(frame, { binary: true }),
        toLeaf: (frame) => upstream?.send(frame, { binary: true }),
        fail: (reason) => {
          client.send(encodeEnvelope(T.error, reason), { binary: true });
          client.close(1008, reason.slice(0, 120));
        },
      });
      upstream = new WebSocket(`ws://leaf${req.url ?? '/'}`, {
        createConnection: () => stream as never,
        headers: { cookie: `${sessionCookieName}=${admitted.grant.session}` },
        perMessageDeflate: false,
        maxPayload: 64 * maxPayload,
      });
      upstream.on('open', () => {
        upstream!.send(JSON.stringify(firstFrame));
        for (const message of early.splice(0))
          upstream!.send(message.data, { binary: message.isBinary });
      });
      upstream.on('message', (data: RawData, binary: boolean) => {
        if (checks?.fromLeaf(data, binary)) return;
        if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
      });
      upstream.on('close', (code, reason) => client.close(sendable(code), reason));
      upstream.on('error', (error) => {
        options.onError(error);
        client.terminate();
      });
    }
  });
}

function parseJson(data: RawData): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(data as Buffer).toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Codes a peer may send: 1005 and 1006 only describe what happened, so they become 1000. */
const sendable = (code: number) => (code === 1005 || code === 1006 ? 1000 : code);
