import type { Connection } from 'ssh2';
import { protocolOf, sendRawPayload } from './ssh2-internals.js';
import { SshWriter } from './wire.js';

const SSH_MSG_DISCONNECT = 1;
const SSH_DISCONNECT_BY_APPLICATION = 11;

/**
 * Ends a server-side connection with a description the client prints (OpenSSH: "Received
 * disconnect from …: 11: <reason>"); ssh2's own `end()` sends the code without one.
 */
export function disconnectWithReason(connection: Connection, reason: string): void {
  try {
    const payload = new SshWriter()
      .byte(SSH_MSG_DISCONNECT)
      .uint32(SSH_DISCONNECT_BY_APPLICATION)
      .string(reason)
      .string('')
      .toBuffer();
    sendRawPayload(protocolOf(connection), payload);
  } catch {
    // The connection is already gone (or ssh2 changed): ending it below still ends it.
  }
  connection.end();
}
