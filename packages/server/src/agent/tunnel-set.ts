import type { ProxyAddress } from '../modules/tunnel/tunnel-protocol.js';
import { proxyBaseUrl } from './proxy-address.js';
import { TunnelClient, type AgentLog, type TunnelClientOptions } from './tunnel-client.js';

export type TunnelSetOptions = Omit<TunnelClientOptions, 'base' | 'onProxies'>;

/**
 * One tunnel to every proxy of a cluster: the first to the address given, then one per other
 * proxy the cluster lists (on connect and whenever the list changes), so that whichever proxy a
 * user reaches can dial this end (docs/high-availability.md). Agents and leaf clusters keep one.
 */
export class TunnelSet {
  private readonly first: TunnelClient;
  private readonly others = new Map<string, TunnelClient>();
  private readonly options: Omit<TunnelClientOptions, 'base'>;
  private proxyList: ProxyAddress[] = [];
  private stopped = false;

  constructor(options: TunnelSetOptions, base: URL) {
    this.options = {
      ...options,
      onReady: (keys, proxyId) => {
        options.onReady(keys, proxyId);
        this.reconcile();
      },
      onProxies: (list) => {
        this.proxyList = list;
        this.reconcile();
      },
    };
    this.first = new TunnelClient({ ...this.options, base });
  }

  start(): void {
    this.first.start();
  }

  /** Whether the proxy it was given first has the tunnel now. */
  get connected(): boolean {
    return this.first.connected;
  }

  tunnels(): { proxy: string; proxyId: string | undefined; connected: boolean }[] {
    return [this.first, ...this.others.values()].map((client) => ({
      proxy: client.proxy,
      proxyId: client.proxyId,
      connected: client.connected,
    }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.first, ...this.others.values()].map((client) => client.stop()));
  }

  private get log(): AgentLog {
    return this.options.log;
  }

  private reconcile(): void {
    if (this.stopped) return;
    const wanted = new Map(
      this.proxyList.filter((proxy) => proxy.id !== this.first.proxyId).map((p) => [p.id, p.addr]),
    );
    for (const [id, other] of this.others) {
      if (wanted.has(id) && proxyBaseUrl(wanted.get(id)!).origin === other.proxy) continue;
      this.others.delete(id);
      this.log.info({ proxy: other.proxy, proxyId: id }, 'closing the tunnel to a proxy that left');
      void other.retire();
    }
    for (const [id, addr] of wanted) {
      if (this.others.has(id)) continue;
      let url: URL;
      try {
        url = proxyBaseUrl(addr);
      } catch {
        this.log.warn({ proxyId: id, addr }, 'ignored a proxy with an unusable address');
        continue;
      }
      const other = new TunnelClient({ ...this.options, base: url });
      this.others.set(id, other);
      this.log.info({ proxy: url.origin, proxyId: id }, 'opening a tunnel to another proxy');
      other.start();
    }
  }
}
