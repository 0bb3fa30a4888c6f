import { desktopNameSchema } from '@postern/contracts';
import { readSecretFile } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';

/** A VNC desktop this agent serves (`--desktop name=vnc://host:port?password_file=FILE`). */
export interface AgentDesktop {
  name: string;
  host: string;
  port: number;
  /** The VNC password, read from its file at start; it never leaves this host. */
  password?: string;
}

/**
 * `--desktop build=vnc://localhost:5901?password_file=/etc/postern/build.vncpass`: the name,
 * where the VNC server listens (5900 by default), and the file whose first line is its password
 * (none: the server must offer no authentication).
 */
export function parseDesktopFlags(values: readonly string[]): AgentDesktop[] {
  const desktops: AgentDesktop[] = [];
  for (const value of values) {
    const equals = value.indexOf('=');
    const name = desktopNameSchema.safeParse(equals > 0 ? value.slice(0, equals).trim() : '');
    if (!name.success) {
      throw new ConfigError(
        `--desktop: expected name=vnc://host:port with a DNS label name, got '${value}'`,
      );
    }
    let uri: URL | undefined;
    try {
      uri = new URL(value.slice(equals + 1).trim());
    } catch {
      uri = undefined;
    }
    if (uri?.protocol !== 'vnc:' || !uri.hostname) {
      throw new ConfigError(`--desktop ${name.data}: expected vnc://host:port`);
    }
    const passwordFile = uri.searchParams.get('password_file');
    if (desktops.some((desktop) => desktop.name === name.data)) {
      throw new ConfigError(`--desktop: ${name.data} is given twice`);
    }
    desktops.push({
      name: name.data,
      host: uri.hostname.replace(/^\[|\]$/g, ''),
      port: Number(uri.port) || 5900,
      ...(passwordFile
        ? { password: readSecretFile(passwordFile, `--desktop ${name.data} password_file`) }
        : {}),
    });
  }
  return desktops;
}
