import type { DesktopJson, DesktopProtocol, DesktopSortField, NodeLabel } from '@postern/contracts';
import type { ListFilters } from '../../components/resourceList/listFilters';

/** The console's model of a desktop (spec §3 Desktop: os, name, addr, host_id, labels, logins). */
export interface Desktop {
  name: string;
  description: string;
  protocol: DesktopProtocol;
  os: string;
  /** host[:port], the port left out when it is the protocol's usual one. */
  addr: string;
  hostId: string;
  labels: NodeLabel[];
  /** The logins this user's roles allow here. */
  logins: string[];
  /** Reached through an agent's tunnel. */
  tunnel: boolean;
  status: 'online' | 'offline';
}

export function makeDesktop(json: DesktopJson): Desktop {
  return {
    name: json.name,
    description: json.description,
    protocol: json.protocol,
    os: json.os,
    addr: json.addr,
    hostId: json.host_id,
    labels: json.labels,
    logins: json.logins,
    tunnel: json.tunnel,
    status: json.status,
  };
}

export interface DesktopPage {
  desktops: Desktop[];
  startKey: string;
  totalCount: number;
}

export type DesktopFilters = ListFilters<DesktopSortField>;

export const noFilters: DesktopFilters = { search: '', query: '' };

/**
 * The protocols the browser's session page opens: noVNC speaks RFB, and for RDP desktops the
 * proxy is the RDP client and serves the screen to noVNC as VNC.
 */
export const browserProtocols: readonly DesktopProtocol[] = ['vnc', 'rdp'];

export const protocolName = (protocol: DesktopProtocol) => protocol.toUpperCase();
