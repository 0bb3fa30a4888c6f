import {
  desktopNamePattern,
  type DesktopResource,
  type DesktopSortField,
} from '@postern/contracts';
import type { Item } from '../../backend/index.js';
import type { CatalogRecord } from '../../modules/inventory/resource-catalog.js';
import type { ResourceKind } from '../../modules/inventory/resource-kind.js';

/** A desktop as stored under `/desktops/<name>` (the inventory's catalog). */
export type DesktopRecord = CatalogRecord<DesktopResource>;

export const desktopsPrefix = '/desktops/';

const defaultPorts: Record<string, string> = { vnc: '5900', rdp: '3389' };

/** `host:port`, without the port when it is the protocol's usual one (spec §3: 3389 stripped). */
export function shownAddr(desktop: DesktopResource): string {
  const at = desktop.spec.addr.lastIndexOf(':');
  const port = desktop.spec.addr.slice(at + 1);
  return port === defaultPorts[desktop.spec.protocol]
    ? desktop.spec.addr.slice(0, at)
    : desktop.spec.addr;
}

/** The host and port of `host:port` (IPv6 without its brackets). */
export function desktopAddress(desktop: DesktopResource): { host: string; port: number } {
  const at = desktop.spec.addr.lastIndexOf(':');
  return {
    host: desktop.spec.addr.slice(0, at).replace(/^\[|\]$/g, ''),
    port: Number(desktop.spec.addr.slice(at + 1)),
  };
}

/** The inventory's view of desktops: the generic resource list does the rest. */
export const desktopKind: ResourceKind<DesktopRecord, DesktopSortField> = {
  accessKind: 'desktop',
  recordsPrefix: desktopsPrefix,
  heartbeatsPrefix: '/desktop_heartbeats/',
  parse: (item: Item) => JSON.parse(item.value) as DesktopRecord,
  idOf: (desktop) => desktop.metadata.name,
  isId: (id) => desktopNamePattern.test(id),
  labelsOf: (desktop) => desktop.metadata.labels,
  searchTextsOf: (desktop) => [
    desktop.metadata.name,
    desktop.metadata.description,
    desktop.spec.addr,
    desktop.spec.os,
  ],
  sortValues: {
    name: (desktop) => desktop.metadata.name,
    addr: (desktop) => desktop.spec.addr,
    os: (desktop) => desktop.spec.os,
  },
  expiresOf: (desktop) => desktop.expires,
  heartbeatTtlMs: 90_000,
};
