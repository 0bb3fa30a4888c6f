import { z } from 'zod';
import { nodeLabelSchema } from './nodes.js';
import { resourceListQuerySchema, resourceListResponseSchema } from './resource-list.js';

/**
 * Desktops (spec §3 Desktop and Desktop service, §7 desktops, desktopservices, the connect and
 * playback WebSockets; reference §3). Postern reaches VNC desktops (and RDP ones) itself: the
 * browser never speaks to a desktop directly, and a desktop's password never reaches it.
 * docs/desktops.md says how each part works.
 */

export const desktopNamePattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const desktopNameSchema = z
  .string()
  .regex(
    desktopNamePattern,
    'desktop names are DNS labels: a-z, 0-9 and inner dashes, 1-63 characters',
  );

export const desktopProtocols = ['vnc', 'rdp'] as const;
export type DesktopProtocol = (typeof desktopProtocols)[number];

/** `host:port` (IPv6 in brackets): where the proxy, or the agent, reaches the desktop. */
export const desktopAddrSchema = z
  .string()
  .max(300)
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'addr is host:port');

/**
 * The resource (`postern create -f desktop.yaml`, the config file, agents). `kind` is `desktop`
 * or, as the reference names Windows hosts, `windows_desktop`; both are the same resource.
 */
export const desktopResourceSchema = z.object({
  kind: z.enum(['desktop', 'windows_desktop']),
  version: z.literal('v3').default('v3'),
  metadata: z.object({
    name: desktopNameSchema,
    description: z.string().max(1024).default(''),
    labels: z.record(z.string().max(256), z.string().max(256)).default({}),
  }),
  spec: z.object({
    addr: desktopAddrSchema,
    protocol: z.enum(desktopProtocols, { error: 'protocol is vnc or rdp' }).default('vnc'),
    /** The host the desktop runs on (an agent's node id, or a name), for the list. */
    host_id: z.string().max(256).default(''),
    /** What the list shows: `Linux`, `Windows`… */
    os: z.string().max(64).default(''),
    /**
     * VNC: the server's password (VNC authentication), kept in storage and never sent to a
     * browser; absent, the server must offer no authentication. RDP: ignored.
     */
    vnc_password: z.string().max(256).optional(),
    /**
     * RDP: the password of each login the desktop takes (by login), kept in storage and never
     * sent to a browser. VNC desktops have no logins of their own: a role's login names who
     * may use it.
     */
    rdp_passwords: z.record(z.string().max(256), z.string().max(256)).optional(),
  }),
});
export type DesktopResource = z.infer<typeof desktopResourceSchema>;
export type DesktopResourceInput = z.input<typeof desktopResourceSchema>;

/** A desktop as the list shows it (spec §3 Desktop: os, name, addr, host_id, labels, logins). */
export const desktopJsonSchema = z.object({
  kind: z.literal('windows_desktop'),
  name: z.string(),
  description: z.string(),
  protocol: z.enum(desktopProtocols),
  os: z.string(),
  /** Without the port when it is the protocol's usual one (3389, 5900). */
  addr: z.string(),
  host_id: z.string(),
  labels: z.array(nodeLabelSchema),
  /** The logins this user's roles allow here. */
  logins: z.array(z.string()),
  tunnel: z.boolean(),
  status: z.enum(['online', 'offline']),
});
export type DesktopJson = z.infer<typeof desktopJsonSchema>;

export const desktopSortFields = ['name', 'addr', 'os'] as const;
export type DesktopSortField = (typeof desktopSortFields)[number];
export const defaultDesktopSort: { field: DesktopSortField; dir: 'asc' | 'desc' } = {
  field: 'name',
  dir: 'asc',
};

export const desktopListQuerySchema = resourceListQuerySchema(desktopSortFields);
export type DesktopListQuery = z.input<typeof desktopListQuerySchema>;
export const desktopListResponseSchema = resourceListResponseSchema(desktopJsonSchema);
export type DesktopListResponse = z.infer<typeof desktopListResponseSchema>;

/** A desktop service (spec §3): what serves desktops, the proxy or an agent. */
export const desktopServiceJsonSchema = z.object({
  name: z.string(),
  hostname: z.string(),
  addr: z.string(),
  labels: z.array(nodeLabelSchema),
});
export type DesktopServiceJson = z.infer<typeof desktopServiceJsonSchema>;
export const desktopServiceListResponseSchema =
  resourceListResponseSchema(desktopServiceJsonSchema);

/** `GET desktops/{desktopName}/active`: whether a session on it is live now. */
export const desktopActiveResponseSchema = z.object({ active: z.boolean() });

/**
 * The desktop connect WebSocket (`…/desktops/{desktopName}/connect/ws?username=&width=&height=`):
 * after the in-band bearer (the terminal sockets' first frame and answer), the socket carries the
 * desktop protocol's own bytes, which the proxy relays and checks: RFB for VNC (noVNC speaks it;
 * the proxy answers its security handshake itself, with no authentication, and signs in to the
 * desktop with the resource's password).
 */
export const desktopConnectQuerySchema = z.object({
  username: z.string().min(1, 'name the login').max(256),
  width: z.coerce.number().int().min(1).max(8192).optional(),
  height: z.coerce.number().int().min(1).max(8192).optional(),
});
export type DesktopConnectQuery = z.infer<typeof desktopConnectQuerySchema>;

/**
 * A desktop recording's events (docs/desktops.md, "Recordings"), as the playback socket and the
 * player read them: the screen's size, then rectangles of pixels (RGBA, deflated, each one
 * independent of the others), with the time since the start in ms. A keyframe is a rectangle
 * covering the whole screen; seeking starts from the last one before the time.
 */
export type DesktopRecordingEvent =
  | { type: 'screen'; ms: number; width: number; height: number }
  | {
      type: 'rect';
      ms: number;
      x: number;
      y: number;
      width: number;
      height: number;
      /** base64 of deflate(RGBA bytes, row by row). */
      rgba: string;
      keyframe?: boolean;
    }
  | { type: 'clipboard'; ms: number; direction: 'in' | 'out'; bytes: number }
  | { type: 'end'; ms: number };
