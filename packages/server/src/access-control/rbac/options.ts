import type { RecordSessionMode, RequestAccessStrategy } from '@postern/contracts';
import { parseDuration } from './duration.js';
import type { RoleOptions } from './role.schema.js';

/** A user's options: the roles' options merged so that the most restrictive wins. */
export interface EffectiveOptions {
  /** The smallest max_session_ttl; a role without one counts as the 30 h default. */
  maxSessionTtlMs: number;
  /** The smallest non-zero client_idle_timeout; 0 means none. */
  clientIdleTimeoutMs: number;
  /** True if any role requires it. */
  requireSessionMfa: boolean;
  /** The strictest mode (strict > best_effort > off; unset is best_effort); desktops are
   * recorded unless every role says `desktop: false`. */
  recordSession: {
    default: RecordSessionMode;
    ssh: RecordSessionMode;
    k8s: RecordSessionMode;
    desktop: boolean;
  };
  /** False if any role says false; otherwise true. */
  desktopClipboard: boolean;
  desktopDirectorySharing: boolean;
  /** False if any role says false; otherwise true if any says true; otherwise the default
   * (forward_agent false, port_forwarding true). `ssh_port_forwarding` counts for port_forwarding. */
  forwardAgent: boolean;
  portForwarding: boolean;
  /** MySQL's `LOAD DATA LOCAL`: off unless a role says true (and none says false). */
  mysqlLoadDataLocal: boolean;
  /** The strictest strategy (always > reason > optional) and the first prompt given. */
  requestAccess: RequestAccessStrategy;
  requestPrompt: string;
  /** scp and sftp (SSH proxy, node service) and the console's file transfer: false if any says false. */
  sshFileCopy: boolean;
  /** True if any role says so: live sessions end when the certificate that opened them expires. */
  disconnectExpiredCert: boolean;
  /** The smallest non-zero limit of each; 0 means none. */
  maxSessions: number;
  maxConnections: number;
  maxKubernetesConnections: number;
  /**
   * `strict` if any role says so (access is refused while the lock view may be stale), else
   * `best_effort` if any role says so; undefined when none does: the cluster's
   * `auth.locking_mode` applies then.
   */
  lockingMode: 'best_effort' | 'strict' | undefined;
  /** True if any role says so: certificates carry the client's address and work only from it. */
  pinSourceIp: boolean;
  /** Every role's cert_extensions (name → value; the first role that names one wins). */
  certExtensions: Record<string, string>;
}

export const defaultMaxSessionTtlMs = 30 * 3_600_000;

const recordOrder: readonly RecordSessionMode[] = ['off', 'best_effort', 'strict'];
const requestOrder: readonly RequestAccessStrategy[] = ['optional', 'reason', 'always'];
const strictest = <T>(order: readonly T[], values: readonly T[], fallback: T): T =>
  values.reduce((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), fallback);

/** false if any says false, true if any says true, else the default. */
function restrictive(said: ReadonlyArray<boolean | undefined>, fallback: boolean): boolean {
  if (said.includes(false)) return false;
  return said.includes(true) ? true : fallback;
}

function portForwardingSaid(options: RoleOptions): Array<boolean | undefined> {
  const ssh = options.ssh_port_forwarding;
  return [options.port_forwarding, ssh?.local?.enabled, ssh?.remote?.enabled];
}

export function mergeOptions(all: readonly RoleOptions[]): EffectiveOptions {
  const ttl = all.map((o) =>
    o.max_session_ttl === undefined
      ? defaultMaxSessionTtlMs
      : parseDuration(o.max_session_ttl) || defaultMaxSessionTtlMs,
  );
  const idle = all
    .map((o) =>
      o.client_idle_timeout === undefined ? 0 : (parseDuration(o.client_idle_timeout) ?? 0),
    )
    .filter((ms) => ms > 0);
  const modes = all.map((o) => o.record_session?.default ?? 'best_effort');
  const sshModes = all.map(
    (o) => o.record_session?.ssh ?? o.record_session?.default ?? 'best_effort',
  );
  const k8sModes = all.map(
    (o) => o.record_session?.k8s ?? o.record_session?.default ?? 'best_effort',
  );
  return {
    maxSessionTtlMs: ttl.length > 0 ? Math.min(...ttl) : defaultMaxSessionTtlMs,
    clientIdleTimeoutMs: idle.length > 0 ? Math.min(...idle) : 0,
    requireSessionMfa: all.some((o) => o.require_session_mfa === true),
    recordSession: {
      default: strictest(recordOrder, modes, modes[0] ?? 'best_effort'),
      ssh: strictest(recordOrder, sshModes, sshModes[0] ?? 'best_effort'),
      k8s: strictest(recordOrder, k8sModes, k8sModes[0] ?? 'best_effort'),
      desktop: all.length === 0 || all.some((o) => o.record_session?.desktop !== false),
    },
    desktopClipboard: restrictive(
      all.map((o) => o.desktop_clipboard),
      true,
    ),
    desktopDirectorySharing: restrictive(
      all.map((o) => o.desktop_directory_sharing),
      true,
    ),
    forwardAgent: restrictive(
      all.map((o) => o.forward_agent),
      false,
    ),
    portForwarding: restrictive(all.flatMap(portForwardingSaid), true),
    mysqlLoadDataLocal: restrictive(
      all.map((o) => o.mysql_load_data_local),
      false,
    ),
    requestAccess: strictest(
      requestOrder,
      all.flatMap((o) => (o.request_access ? [o.request_access] : [])),
      'optional',
    ),
    requestPrompt: all.find((o) => o.request_prompt)?.request_prompt ?? '',
    sshFileCopy: !all.some((o) => o.ssh_file_copy === false),
    disconnectExpiredCert: all.some((o) => o.disconnect_expired_cert === true),
    maxSessions: smallestLimit(all.map((o) => o.max_sessions)),
    maxConnections: smallestLimit(all.map((o) => o.max_connections)),
    maxKubernetesConnections: smallestLimit(all.map((o) => o.max_kubernetes_connections)),
    lockingMode: all.some((o) => o.lock === 'strict')
      ? 'strict'
      : all.some((o) => o.lock === 'best_effort')
        ? 'best_effort'
        : undefined,
    pinSourceIp: all.some((o) => o.pin_source_ip === true),
    certExtensions: certExtensionsOf(all),
  };
}

/** The smallest non-zero limit; 0 when no role sets one. */
function smallestLimit(limits: ReadonlyArray<number | undefined>): number {
  const set = limits.filter((n): n is number => typeof n === 'number' && n > 0);
  return set.length > 0 ? Math.min(...set) : 0;
}

function certExtensionsOf(all: readonly RoleOptions[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const options of all) {
    for (const { name, value } of options.cert_extensions ?? []) {
      if (!(name in out)) out[name] = value;
    }
  }
  return out;
}
