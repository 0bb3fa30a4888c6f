/**
 * noVNC ships JavaScript without types. What the console uses of its RFB client (1.7.0,
 * `core/rfb.js`, the package's one export; docs/API.md of noVNC), typed here.
 */
declare module '@novnc/novnc' {
  export interface RfbOptions {
    /** Ask the server to share the desktop with other clients (ClientInit's shared flag). */
    shared?: boolean;
    credentials?: { username?: string; password?: string; target?: string };
    repeaterID?: string;
    wsProtocols?: string[];
  }

  export interface RfbEventMap {
    connect: CustomEvent<Record<string, never>>;
    /** `clean` is false when the connection failed or was lost. */
    disconnect: CustomEvent<{ clean: boolean }>;
    /** The server refused the security handshake; `reason` when it said why. */
    securityfailure: CustomEvent<{ status: number; reason?: string }>;
    /** The desktop's clipboard changed. */
    clipboard: CustomEvent<{ text: string }>;
    desktopname: CustomEvent<{ name: string }>;
    credentialsrequired: CustomEvent<{ types: string[] }>;
    capabilities: CustomEvent<{ capabilities: { power: boolean } }>;
  }

  /**
   * The RFB client. `urlOrChannel` is a URL to open, or a WebSocket (or RTCDataChannel) that is
   * connecting or already open: noVNC then attaches to it and takes over its handlers.
   */
  export default class RFB {
    constructor(
      target: HTMLElement,
      urlOrChannel: string | WebSocket | RTCDataChannel,
      options?: RfbOptions,
    );
    viewOnly: boolean;
    focusOnClick: boolean;
    clipViewport: boolean;
    dragViewport: boolean;
    scaleViewport: boolean;
    resizeSession: boolean;
    showDotCursor: boolean;
    background: string;
    qualityLevel: number;
    compressionLevel: number;
    readonly capabilities: { power: boolean };
    disconnect(): void;
    sendCredentials(credentials: { username?: string; password?: string; target?: string }): void;
    sendCtrlAltDel(): void;
    sendKey(keysym: number, code: string | null, down?: boolean): void;
    focus(options?: FocusOptions): void;
    blur(): void;
    clipboardPasteFrom(text: string): void;
    addEventListener<K extends keyof RfbEventMap>(
      type: K,
      listener: (event: RfbEventMap[K]) => void,
    ): void;
    removeEventListener<K extends keyof RfbEventMap>(
      type: K,
      listener: (event: RfbEventMap[K]) => void,
    ): void;
  }
}
