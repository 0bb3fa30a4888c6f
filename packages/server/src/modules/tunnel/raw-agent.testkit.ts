import { randomUUID, sign, type KeyObject } from 'node:crypto';
import { agentPaths } from '@postern/contracts';
import { WebSocket } from 'ws';
import type { TunnelProxy } from '../../agent/tunnel-proxy.testkit.js';
import type { ClusterCa } from '../../ssh/ca.service.js';
import { ed25519PrivateKeyObject, generateEd25519Key } from '../../ssh/keys.js';
import { proofMessage, tunnelProtocolVersion } from './tunnel-protocol.js';

export interface RawAgent {
  socket: WebSocket;
  messages: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * A hand-driven agent, so each step of the handshake can be got wrong on purpose. Its hello
 * advertises its node service unless `hello` says what to send instead.
 */
export function rawAgent(
  proxy: TunnelProxy,
  identity: { nodeId: string; hostCertificate: string },
  signWith: KeyObject,
  options: { autoPong?: boolean; hello?: Record<string, unknown> } = {},
): RawAgent {
  const { nodeId, hostCertificate } = identity;
  const hello = options.hello ?? {
    version: tunnelProtocolVersion,
    nodeId,
    hostCertificate,
    services: [{ kind: 'node', name: nodeId }],
  };
  const socket = new WebSocket(`${proxy.url.replace('http', 'ws')}${agentPaths.tunnel}`, {
    autoPong: options.autoPong ?? true,
  });
  const messages: Array<Record<string, unknown>> = [];
  socket.on('open', () => socket.send(JSON.stringify(hello)));
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    messages.push(message);
    if (typeof message.challenge === 'string') {
      const proof = proofMessage(nodeId, Buffer.from(message.challenge, 'base64'));
      socket.send(JSON.stringify({ signature: sign(null, proof, signWith).toString('base64') }));
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { socket, messages, closed };
}

export function hostIdentity(ca: ClusterCa, principals?: string[]) {
  const key = generateEd25519Key();
  const nodeId = randomUUID();
  const hostCertificate = ca.issueHostCertificate({
    publicKey: key.publicKey,
    principals: principals ?? [nodeId],
    hostId: nodeId,
    ttlMs: 3600_000,
  });
  return { nodeId, hostCertificate, privateKey: ed25519PrivateKeyObject(key.privateKeyPem) };
}

export const isReady = (agent: RawAgent) =>
  agent.messages.some((message) => message.type === 'ready');
