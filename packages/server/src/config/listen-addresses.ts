import { formatHostPort, type HostPort } from './address.js';
import type { Config } from './config.js';

/**
 * The addresses this process's listeners bound, and the public addresses derived from them.
 * Each listener reports what it bound here (with port 0 the OS picks one); readers ask here
 * instead of the config, which stays what the operator wrote. Before a listener reports (in
 * tests that never listen), its configured address stands in.
 */
export class ListenAddresses {
  private readonly bound = new Map<string, HostPort>();

  constructor(
    private readonly config: Pick<Config, 'webAddr' | 'sshAddr' | 'publicAddr' | 'insecureNoTls'>,
  ) {}

  /** Called by a listener once it listens: `web`, `ssh`, and each wing's own. */
  report(listener: string, address: HostPort): void {
    this.bound.set(listener, address);
  }

  /** The address a listener bound, or the configured one before it reports. */
  of(listener: string): HostPort | undefined {
    return this.bound.get(listener) ?? this.configured(listener);
  }

  /** Every listener's address: those that reported, and web and SSH as configured until then. */
  all(): HostPort[] {
    const names = new Set(['web', 'ssh', ...this.bound.keys()]);
    return [...names].flatMap((name) => {
      const address = this.of(name);
      return address ? [address] : [];
    });
  }

  /** Where people reach the console: `public_addr`, whose port 0 means the web listener's. */
  publicAddr(): HostPort {
    const { host, port } = this.config.publicAddr;
    return port !== 0 ? { host, port } : { host, port: this.of('web')?.port ?? 0 };
  }

  /** `https://public_addr` (http with --insecure-no-tls), with no trailing slash. */
  publicBaseUrl(): string {
    const scheme = this.config.insecureNoTls ? 'http' : 'https';
    return `${scheme}://${formatHostPort(this.publicAddr())}`;
  }

  /** Where clients reach a listener from outside: the public host with the listener's port. */
  publicEndpoint(listener: string): string {
    const port = this.of(listener)?.port ?? 0;
    return formatHostPort({ host: this.config.publicAddr.host, port });
  }

  private configured(listener: string): HostPort | undefined {
    if (listener === 'web') return this.config.webAddr;
    if (listener === 'ssh') return this.config.sshAddr;
    return undefined;
  }
}
