import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';

/** A listener of this proxy: host as bound (perhaps 0.0.0.0) and port. */
export interface Endpoint {
  host: string;
  port: number;
}

/** A target the guard refuses; its message names the reason and is safe to show. */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
}

// Link-local: cloud metadata services (169.254.169.254) and neighbours no admin means to post
// to; plus AWS's IPv6 metadata address, which is not link-local. BlockList also matches the
// IPv4-mapped IPv6 spellings (::ffff:a9fe:a9fe).
const linkLocal = new BlockList();
linkLocal.addSubnet('169.254.0.0', 16, 'ipv4');
linkLocal.addSubnet('fe80::', 10, 'ipv6');
linkLocal.addAddress('fd00:ec2::254', 'ipv6');

// Addresses that reach this very host whatever it is called.
const thisHost = new BlockList();
thisHost.addSubnet('127.0.0.0', 8, 'ipv4');
thisHost.addSubnet('0.0.0.0', 8, 'ipv4');
thisHost.addAddress('::1', 'ipv6');
thisHost.addAddress('::', 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');
/** `[::1]` as URL.hostname writes it, without brackets. */
export const bareHost = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

export interface UrlGuardOptions {
  /** The proxy's listeners, as bound now (ListenAddresses). */
  ownEndpoints: () => Endpoint[];
  /** This host's interface addresses; os.networkInterfaces() unless a test says otherwise. */
  hostAddresses?: () => string[];
}

/**
 * Keeps integrations from turning the proxy against itself or its cloud: a URL or SMTP server
 * may not be one of the proxy's own listeners (a webhook into our own API from inside would
 * bypass the edge) nor a link-local address (the cloud's metadata service hands out
 * credentials). Other loopback ports stay allowed: a relay next to the proxy is a fair target.
 *
 * It checks when an integration is saved, for a clear 400, and again at each delivery through
 * `lookupFor`, which vets the addresses a name resolves to at connect time, so a DNS answer that
 * changes after the save cannot slip past.
 */
export class UrlGuard {
  constructor(private readonly options: UrlGuardOptions) {}

  /** Why a connection to this address and port is refused, or undefined when it is allowed. */
  refusal(address: string, port: number): string | undefined {
    const ip = bareHost(address);
    if (!isIP(ip)) return `${address} is not an IP address`;
    if (linkLocal.check(ip, family(ip))) {
      return `${ip} is a link-local address (such as a cloud metadata service)`;
    }
    if (this.isOwnListener(ip, port)) return `${ip}:${port} is this proxy's own listener`;
    return undefined;
  }

  /**
   * Checks a host (name or IP literal) and port at save time. A name that does not resolve now
   * is accepted: the receiver may come later, and every delivery checks again.
   */
  async check(host: string, port: number): Promise<void> {
    const addresses = await resolveAll(bareHost(host)).catch(() => []);
    for (const address of addresses) {
      const reason = this.refusal(address, port);
      if (reason) throw new TargetRefusedError(reason);
    }
  }

  /** Whether every address the host resolves to is loopback (for SMTP without TLS). */
  async isLoopback(host: string): Promise<boolean> {
    const addresses = await resolveAll(bareHost(host)).catch(() => []);
    return addresses.length > 0 && addresses.every((a) => loopback.check(a, family(a)));
  }

  /**
   * A `lookup` for http.request and net.connect that refuses the connection when any address
   * of the name is refused. Node skips lookup for IP literals: callers check those with
   * `refusal` first (`checkLiteral`).
   */
  lookupFor(port: number): LookupFunction {
    return ((hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        const reason = addresses.map((a) => this.refusal(a.address, port)).find(Boolean);
        if (reason) return callback(new TargetRefusedError(reason), '', 0);
        if (options.all) return callback(null, addresses);
        const [first] = addresses;
        return callback(null, first?.address ?? '', first?.family ?? 4);
      });
    }) as unknown as LookupFunction;
  }

  /** Throws for an IP literal that is refused (names are vetted by `lookupFor`). */
  checkLiteral(host: string, port: number): void {
    const ip = bareHost(host);
    if (!isIP(ip)) return;
    const reason = this.refusal(ip, port);
    if (reason) throw new TargetRefusedError(reason);
  }

  private isOwnListener(ip: string, port: number): boolean {
    const own = this.options.ownEndpoints().filter((endpoint) => endpoint.port === port);
    if (own.length === 0) return false;
    if (thisHost.check(ip, family(ip))) return true;
    const local = this.options.hostAddresses?.() ?? interfaceAddresses();
    const bound = own.map((endpoint) => bareHost(endpoint.host));
    return [...local, ...bound].some((address) => sameAddress(address, ip));
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

function resolveAll(host: string): Promise<string[]> {
  if (isIP(host)) return Promise.resolve([host]);
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((a) => a.address)),
    );
  });
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** Same address, also across the IPv4 and IPv4-mapped IPv6 spellings. */
function sameAddress(a: string, b: string): boolean {
  if (!isIP(a) || !isIP(b)) return a === b;
  const one = new BlockList();
  one.addAddress(a, family(a));
  return one.check(b, family(b));
}

/** The port a URL connects to, its default when it names none. */
export function urlPort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** Whether an address is loopback (127.0.0.0/8, ::1, and their IPv4-mapped forms). */
export const isLoopbackAddress = (address: string) =>
  isIP(bareHost(address)) !== 0 && loopback.check(bareHost(address), family(bareHost(address)));
