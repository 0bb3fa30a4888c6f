import { once } from 'node:events';
import type { Client, ClientChannel, ServerChannel } from 'ssh2';
import {
  offerOnNextSession,
  outgoingPacketSize,
  peerSoftware,
} from '../../../ssh/ssh2-internals.js';
import { emitAuditInBackground } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import type { ProxiedChannel } from './proxied-channel.js';
import { limitInFlight } from './in-flight.js';
import { SftpAuditor } from './sftp-audit.js';
import { tickRelay } from './tick-relay.js';

/**
 * The `sftp` subsystem (sftp, and scp since OpenSSH 9): the client's SFTP session goes to the
 * node's sftp subsystem byte for byte, and an SftpAuditor watching both directions turns its
 * operations into TS0xx events. Nothing is re-encoded; each direction is a tickRelay that writes
 * whole packets of the other side, so a bulk transfer leaves in full packets.
 *
 * The node is asked for packets no bigger than the client's channel takes (the jump channel's
 * packet less the inner framing, inner-connection.ts), so each packet of a download fills one
 * packet towards the client as it is: nothing is joined or cut, no byte copied in between.
 * (Uploads are aligned already: the client and sshd both use 32 KiB.)
 */
export async function relaySftp(
  channel: ServerChannel,
  client: Client,
  proxied: ProxiedChannel,
  audit: AuditStore,
): Promise<void> {
  let remote: ClientChannel;
  const packetSize = outgoingPacketSize(channel);
  if (packetSize) offerOnNextSession(client, { packetSize });
  try {
    remote = await new Promise<ClientChannel>((resolve, reject) =>
      client.subsys('sftp', (error, stream) => (error ? reject(error) : resolve(stream))),
    );
  } catch (error) {
    client.end();
    const reason = (error as Error).message;
    emitAuditInBackground(audit, 'T3001E', {
      ...proxied.fields(),
      name: 'sftp',
      exitError: reason,
    });
    channel.stderr.write(
      `Postern: sftp is not available on ${proxied.reach.node.hostname}: ${reason}\r\n`,
    );
    channel.exit(1);
    channel.end();
    return;
  }
  emitAuditInBackground(audit, 'T3001I', { ...proxied.fields(), name: 'sftp' });
  limitInFlight(remote, peerSoftware(client));
  const auditor = new SftpAuditor((event) => {
    const { code, ...details } = event;
    emitAuditInBackground(audit, code, { ...proxied.fields(), ...details });
  });
  const stop = (why: string) => {
    channel.stderr.write(`Postern: ${why}\r\n`);
    channel.close();
  };
  const onStop = (error: Error) => stop(error.message);
  tickRelay(channel, remote, (chunk) => auditor.fromClient.push(chunk), {
    end: true,
    onStop,
    packetSize: outgoingPacketSize(remote),
  });
  tickRelay(remote, channel, (chunk) => auditor.fromServer.push(chunk), {
    end: false,
    onStop,
    packetSize,
  });
  // scp checks the subsystem's exit status: pass it on once every answer has been sent.
  let exit: { code?: number; signal?: string } = {};
  remote.on('exit', (code: number | null, signal?: string) => {
    exit = signal ? { signal } : { code: code ?? 0 };
  });
  void Promise.all([once(remote, 'end'), once(remote, 'close')]).then(() => {
    if (exit.signal) channel.exit(exit.signal.replace(/^SIG/, ''), false, '');
    else channel.exit(exit.code ?? 0);
    channel.end();
    client.end();
  });
  channel.on('close', () => {
    remote.close();
    client.end();
  });
}
