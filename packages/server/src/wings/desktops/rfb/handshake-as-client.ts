import type { ByteInput } from './byte-input.js';
import type { ByteOutput } from './byte-output.js';
import {
  checkedLength,
  parseVersion,
  printable,
  securityType,
  securityTypeName,
  versionBytes,
  type RfbVersion,
} from './protocol.js';
import { readServerInit, type ServerInit } from './server-init.js';
import { vncAuthResponse, vncChallengeBytes } from './vnc-auth.js';

/** The desktop turned the proxy away; the message is meant for the person connecting. */
export class DesktopRefusedError extends Error {
  override readonly name = 'DesktopRefusedError';
}

export interface ClientHandshakeOptions {
  /** For VNC Authentication; without it the server must offer None. */
  password?: string;
  /** ClientInit's shared flag: false asks the server to disconnect its other clients. */
  shared: boolean;
}

export interface ClientHandshake {
  version: RfbVersion;
  security: number;
  serverInit: ServerInit;
}

/**
 * The client's side of the RFB handshake (RFC 6143 §7.1–7.3): version, security (None, or VNC
 * Authentication when there is a password and the server offers it), SecurityResult, ClientInit,
 * ServerInit. Speaks 3.8, and 3.7 or 3.3 to servers that offer only those (§7.1.1, §7.2).
 * The proxy runs it towards desktops; tests run it towards the proxy, as noVNC would.
 */
export async function handshakeAsClient(
  input: ByteInput,
  output: ByteOutput,
  options: ClientHandshakeOptions,
): Promise<ClientHandshake> {
  const offered = await input.read(12);
  const version = parseVersion(offered);
  if (!version) {
    throw new DesktopRefusedError(
      `the desktop does not speak RFB (VNC): it sent ${printable(offered)}`,
    );
  }
  await output.write(versionBytes(version));
  await output.flush();

  const security = await chooseSecurity(input, output, version, options.password);
  if (security === securityType.vncAuthentication) {
    const challenge = await input.read(vncChallengeBytes);
    await output.write(vncAuthResponse(options.password ?? '', challenge));
    await output.flush();
  }
  // Before 3.8, None has no SecurityResult; 3.8 sends one for every type (§7.1.3).
  if (security === securityType.vncAuthentication || version === '3.8') {
    const result = (await input.read(4)).readUInt32BE(0);
    if (result !== 0) {
      const reason = version === '3.8' ? await readReason(input) : '';
      const detail = reason ? ` (${reason})` : '';
      throw new DesktopRefusedError(
        security === securityType.vncAuthentication
          ? `the desktop refused its password${detail}`
          : `the desktop refused the connection${detail}`,
      );
    }
  }
  await output.write(Buffer.from([options.shared ? 1 : 0]));
  await output.flush();
  return { version, security, serverInit: await readServerInit(input) };
}

/** Reads the server's security offer and answers it (3.3: the server decides alone). */
async function chooseSecurity(
  input: ByteInput,
  output: ByteOutput,
  version: RfbVersion,
  password: string | undefined,
): Promise<number> {
  let offered: number[];
  if (version === '3.3') {
    offered = [(await input.read(4)).readUInt32BE(0)];
  } else {
    const count = (await input.read(1))[0]!;
    offered = count === 0 ? [securityType.invalid] : [...(await input.read(count))];
  }
  if (offered[0] === securityType.invalid) {
    const reason = await readReason(input);
    throw new DesktopRefusedError(
      `the desktop refused the connection${reason ? `: ${reason}` : ''}`,
    );
  }
  const vncAuth = offered.includes(securityType.vncAuthentication);
  const none = offered.includes(securityType.none);
  let chosen: number;
  if (password !== undefined && vncAuth) chosen = securityType.vncAuthentication;
  else if (none) chosen = securityType.none;
  else if (vncAuth) {
    throw new DesktopRefusedError('the desktop asks for a VNC password and none is set for it');
  } else {
    throw new DesktopRefusedError(
      `the desktop offers no security type the proxy supports (it offers ${offered.map(securityTypeName).join(', ')}; the proxy speaks None and VNC Authentication)`,
    );
  }
  if (version !== '3.3') {
    await output.write(Buffer.from([chosen]));
    await output.flush();
  }
  return chosen;
}

/** A failure's reason string: u32 length, then text. */
async function readReason(input: ByteInput): Promise<string> {
  const length = checkedLength((await input.read(4)).readUInt32BE(0), 4096, 'a failure reason');
  return (await input.read(length)).toString('utf8').trim();
}
