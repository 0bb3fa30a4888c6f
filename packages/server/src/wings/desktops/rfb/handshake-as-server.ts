import type { ByteInput } from './byte-input.js';
import type { ByteOutput } from './byte-output.js';
import {
  parseVersion,
  printable,
  securityType,
  versionBytes,
  type RfbVersion,
} from './protocol.js';
import { RfbProtocolError } from './rfb-errors.js';
import { encodeServerInit, type ServerInit } from './server-init.js';

/**
 * The server's side of the RFB handshake, as the proxy plays it towards browsers: it offers 3.8
 * and security None only (the person signed in to Postern already), then sends `serverInit`.
 * noVNC answers 3.8; 3.7 and 3.3 clients are served too, as RFC 6143 §7.1–7.2 describes.
 * Returns the version spoken and ClientInit's shared flag.
 */
export async function handshakeAsServer(
  input: ByteInput,
  output: ByteOutput,
  serverInit: ServerInit,
): Promise<{ version: RfbVersion; shared: boolean }> {
  await output.write(versionBytes('3.8'));
  await output.flush();
  const answered = await input.read(12);
  const version = parseVersion(answered);
  if (!version) throw new RfbProtocolError(`a ProtocolVersion of ${printable(answered)}`);

  if (version === '3.3') {
    await output.write(u32(securityType.none));
  } else {
    await output.write(Buffer.from([1, securityType.none]));
    await output.flush();
    const chosen = (await input.read(1))[0]!;
    if (chosen !== securityType.none) {
      if (version === '3.8') {
        const reason = Buffer.from('the proxy offers security type None only');
        await output.write(Buffer.concat([u32(1), u32(reason.length), reason]));
        await output.flush();
      }
      throw new RfbProtocolError(`security type ${chosen}, which was not offered`);
    }
    if (version === '3.8') await output.write(u32(0));
  }
  await output.flush();
  const shared = (await input.read(1))[0] !== 0;
  await output.write(encodeServerInit(serverInit));
  await output.flush();
  return { version, shared };
}

const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};
