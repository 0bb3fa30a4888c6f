import { once } from 'node:events';
import { Transform, type TransformCallback } from 'node:stream';
import type { Client, ClientChannel, ServerChannel } from 'ssh2';
import { emitAudit } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import type { ProxiedChannel } from './proxied-channel.js';
import { SftpAuditor } from './sftp-audit.js';
import type { SftpPacketReader } from './sftp-packets.js';

/**
 * The `sftp` subsystem (sftp, and scp since OpenSSH 9): the client's SFTP session goes to the
 * node's sftp subsystem byte for byte, and an SftpAuditor watching both directions turns its
 * operations into TS0xx events. Nothing is re-encoded, so speed is the node's.
 */
export async function relaySftp(
  channel: ServerChannel,
  client: Client,
  proxied: ProxiedChannel,
  audit: AuditStore,
): Promise<void> {
  let remote: ClientChannel;
  try {
    remote = await new Promise<ClientChannel>((resolve, reject) =>
      client.subsys('sftp', (error, stream) => (error ? reject(error) : resolve(stream))),
    );
  } catch (error) {
    client.end();
    const reason = (error as Error).message;
    void emitAudit(audit, 'T3001E', { ...proxied.fields(), name: 'sftp', exitError: reason });
    channel.stderr.write(
      `Postern: sftp is not available on ${proxied.reach.node.hostname}: ${reason}\r\n`,
    );
    channel.exit(1);
    channel.end();
    return;
  }
  void emitAudit(audit, 'T3001I', { ...proxied.fields(), name: 'sftp' });
  const auditor = new SftpAuditor((event) => {
    const { code, ...details } = event;
    void emitAudit(audit, code, { ...proxied.fields(), ...details });
  });
  const stop = (why: string) => {
    channel.stderr.write(`Postern: ${why}\r\n`);
    channel.close();
  };
  channel.pipe(watch(auditor.fromClient, stop)).pipe(remote);
  const toClient = remote.pipe(watch(auditor.fromServer, stop));
  toClient.pipe(channel, { end: false });
  // scp checks the subsystem's exit status: pass it on once every answer has been sent.
  let exit: { code?: number; signal?: string } = {};
  remote.on('exit', (code: number | null, signal?: string) => {
    exit = signal ? { signal } : { code: code ?? 0 };
  });
  void Promise.all([once(toClient, 'end'), once(remote, 'close')]).then(() => {
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

/** Passes bytes through unchanged while the reader looks at them. */
function watch(reader: SftpPacketReader, stop: (why: string) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        reader.push(chunk);
      } catch (error) {
        stop((error as Error).message);
        return callback();
      }
      callback(null, chunk);
    },
  });
}
