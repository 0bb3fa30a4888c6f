import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { ByteInput } from '../rfb/byte-input.js';
import { Framebuffer } from '../rfb/framebuffer.js';
import { decodeBitmapUpdate } from './bitmap-update.js';
import {
  ClipboardChannel,
  clipboardChannelName,
  clipboardChannelOptions,
} from './clipboard-channel.js';
import { clientDataBlocks, clientInfoPdu, newLicenseRequest } from './client-data.js';
import { subjectPublicKey } from './credssp.js';
import { FastPathOutput, fastPathUpdate } from './fast-path.js';
import { authenticateWithNla, splitLogin } from './nla.js';
import {
  connectionRequest,
  gccConferenceCreateRequest,
  mcs,
  mcsConnectInitial,
  protocolHybrid,
  protocolSsl,
  RdpProtocolError,
  readConnectionConfirm,
  readConnectResponse,
  readMcsPdu,
  tpkt,
  type McsPdu,
} from './rdp-wire.js';
import { readFirstTpkt, readTpkt } from './tpkt-reader.js';
import {
  confirmActive,
  desktopSizeOf,
  finalizationPdus,
  inputPdu,
  pduType,
  pduType2,
  type InputEvent,
} from './share-pdus.js';

export interface RdpLogin {
  user: string;
  password: string;
  domain?: string;
}

export interface RdpClientOptions {
  /** A TCP (or tunnelled) stream to the RDP server. */
  transport: Duplex;
  login: RdpLogin;
  width: number;
  height: number;
  /**
   * Text copied on the desktop; with it the clipboard channel is opened. Without it there is no
   * channel at all, so nothing can pass either way.
   */
  onClipboardText?(text: string): void;
}

/**
 * An RDP client on the proxy (MS-RDPBCGR): TLS security, with Network Level Authentication
 * (CredSSP, nla.ts) first when the server wants it, never RDP's own encryption; slow-path PDUs
 * and fast-path output, no drawing orders and no caches, so every screen change arrives as a
 * bitmap update that it decodes into `framebuffer`, the same decoded screen the VNC relay keeps.
 * The browser then sees that screen as VNC (rdp-to-rfb.ts), and recordings read it as they read
 * a VNC one.
 */
export class RdpClient {
  readonly framebuffer: Framebuffer;
  /** Resolves with why the connection ended (undefined: it closed cleanly). */
  readonly closed: Promise<Error | undefined>;
  #tls!: TLSSocket;
  #input!: ByteInput;
  #userId = 0;
  #ioChannel = 0;
  #clipboardChannelId = 0;
  #clipboard: ClipboardChannel | undefined;
  #shareId = 0;
  #active = false;
  #lastError = 0;
  readonly #fastPath = new FastPathOutput((code, data) => {
    if (code === fastPathUpdate.bitmap) decodeBitmapUpdate(data, this.framebuffer);
  });
  #resolveClosed!: (error: Error | undefined) => void;

  private constructor(width: number, height: number) {
    this.framebuffer = new Framebuffer(width, height);
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /** Connects and signs in; resolves once the server sent its first screen's capabilities. */
  static async connect(options: RdpClientOptions): Promise<RdpClient> {
    const client = new RdpClient(options.width, options.height);
    await client.#connect(options);
    return client;
  }

  /** Sends keyboard and mouse input (dropped before the session is active). */
  send(events: InputEvent[]): void {
    if (!this.#active || events.length === 0) return;
    this.#write(this.#ioChannel, inputPdu(this.#userId, this.#shareId, events));
  }

  /** Offers the browser's text to the desktop's clipboard (when the channel is open). */
  setClipboardText(text: string): void {
    if (this.#active) this.#clipboard?.setText(text);
  }

  close(): void {
    this.#tls?.destroy();
  }

  async #connect(options: RdpClientOptions): Promise<void> {
    // Failures of the connection show in `closed` (or the handshake's rejection), not as events.
    options.transport.on('error', () => undefined);
    const login = { ...options.login, ...splitLogin(options.login) };
    // NLA needs the password; the server picks it over plain TLS when it can (Windows does).
    const protocols = login.password ? protocolSsl | protocolHybrid : protocolSsl;
    options.transport.write(connectionRequest(options.login.user, protocols));
    const selected = readConnectionConfirm(await readFirstTpkt(options.transport));
    const hybrid = selected === protocolHybrid && (protocols & protocolHybrid) !== 0;
    if (selected !== protocolSsl && !hybrid) {
      throw new RdpProtocolError(
        selected === 0
          ? 'the RDP server offers neither TLS nor NLA (only RDP encryption)'
          : `the RDP server chose a security protocol not asked for (${selected})`,
      );
    }
    this.#tls = tlsConnect({
      socket: options.transport,
      // Desktops present self-signed certificates; the proxy is the one that reached this address.
      rejectUnauthorized: false,
    });
    await new Promise<void>((resolve, reject) => {
      this.#tls.once('secureConnect', resolve);
      this.#tls.once('error', reject);
    });
    this.#input = new ByteInput(this.#tls, 'the RDP server');
    this.#tls.on('error', () => undefined);
    if (hybrid) {
      const certificate = this.#tls.getPeerX509Certificate();
      if (!certificate) throw new RdpProtocolError('the RDP server presented no certificate');
      await authenticateWithNla({
        send: (data) => this.#tls.write(data),
        input: this.#input,
        serverPublicKey: subjectPublicKey(
          certificate.publicKey.export({ type: 'spki', format: 'der' }),
        ),
        credentials: login,
      });
    }

    const { width, height } = options;
    const onText = options.onClipboardText;
    const channels = onText
      ? [{ name: clipboardChannelName, options: clipboardChannelOptions }]
      : [];
    const data = clientDataBlocks(width, height, selected, channels);
    this.#tls.write(tpkt(mcsConnectInitial(gccConferenceCreateRequest(data))));
    const blocks = readConnectResponse((await readTpkt(this.#input)).subarray(3));
    const net = blocks.get(0x0c03);
    if (!net || net.length < 2) throw new RdpProtocolError('the server named no I/O channel');
    this.#ioChannel = net.readUInt16LE(0);
    // The ids of the channels asked for, in order (0: the server refused one).
    if (onText && net.length >= 6 && net.readUInt16LE(2) >= 1) {
      this.#clipboardChannelId = net.readUInt16LE(4);
      this.#clipboard = new ClipboardChannel({
        send: (chunk) => this.#write(this.#clipboardChannelId, chunk),
        onText,
      });
    }

    this.#tls.write(tpkt(mcs.erectDomainRequest()));
    this.#tls.write(tpkt(mcs.attachUserRequest()));
    const attached = await this.#nextMcs();
    if (attached.kind !== 'attach-user-confirm' || attached.result !== 0) {
      throw new RdpProtocolError('the server refused the MCS user');
    }
    this.#userId = attached.userId;
    const joined = [this.#userId, this.#ioChannel, this.#clipboardChannelId].filter(Boolean);
    for (const channel of joined) {
      this.#tls.write(tpkt(mcs.channelJoinRequest(this.#userId, channel)));
      const confirm = await this.#nextMcs();
      if (confirm.kind !== 'channel-join-confirm' || confirm.result !== 0) {
        throw new RdpProtocolError(`the server refused to join channel ${channel}`);
      }
    }
    this.#write(this.#ioChannel, clientInfoPdu(login));
    await this.#untilActive(options);
    void this.#run().then(
      () => this.#resolveClosed(undefined),
      (error: Error) => this.#resolveClosed(error),
    );
  }

  /** Licensing, then the Demand Active the client confirms (1.3.1.1 phases 8 to 10). */
  async #untilActive(options: RdpClientOptions): Promise<void> {
    const { width, height } = options;
    for (;;) {
      const data = await this.#nextData();
      if (isLicensingPdu(data)) {
        // SEC_LICENSE_PKT: a server that licenses nothing (xrdp, most hosts) says so with an
        // error alert of STATUS_VALID_CLIENT; anything else would need a licence we do not have.
        const message = data[4];
        if (message === 0xff) continue;
        if (message === 0x01) {
          // SERVER_LICENSE_REQUEST: answered with a new-licence request; servers without a
          // licensing service (xrdp) then send the STATUS_VALID_CLIENT alert.
          this.#write(this.#ioChannel, newLicenseRequest(options.login.user));
          continue;
        }
        throw new RdpProtocolError(`the server asks for an RDP licence (message ${message})`);
      }
      const type = data.readUInt16LE(2) & 0x0f;
      if (type !== pduType.demandActive) continue;
      this.#onDemandActive(data, width, height);
      return;
    }
  }

  #onDemandActive(pdu: Buffer, width: number, height: number): void {
    this.#shareId = pdu.readUInt32LE(6);
    const size = desktopSizeOf(pdu) ?? { width, height };
    if (size.width !== this.framebuffer.width || size.height !== this.framebuffer.height) {
      this.framebuffer.resize(size.width, size.height);
    }
    this.#write(
      this.#ioChannel,
      confirmActive(this.#userId, this.#shareId, size.width, size.height),
    );
    for (const pdu2 of finalizationPdus(this.#userId, this.#shareId))
      this.#write(this.#ioChannel, pdu2);
    this.#active = true;
  }

  /** Reads the session's PDUs until the server ends it. */
  async #run(): Promise<void> {
    for (;;) {
      let data: Buffer;
      try {
        data = await this.#nextData();
      } catch (error) {
        if (error instanceof RdpProtocolError) throw error;
        return;
      }
      for (let at = 0; at + 6 <= data.length;) {
        const length = data.readUInt16LE(at);
        const type = data.readUInt16LE(at + 2) & 0x0f;
        const pdu = data.subarray(at, at + Math.max(length, 6));
        if (type === pduType.deactivateAll) this.#active = false;
        else if (type === pduType.demandActive) {
          this.#onDemandActive(pdu, this.framebuffer.width, this.framebuffer.height);
        } else if (type === pduType.data) this.#onData(pdu);
        if (length < 6) break;
        at += length;
      }
    }
  }

  #onData(pdu: Buffer): void {
    const type2 = pdu[14];
    if (type2 === pduType2.update && pdu.readUInt16LE(18) === 1) {
      decodeBitmapUpdate(pdu.subarray(18), this.framebuffer);
    } else if (type2 === pduType2.setErrorInfo) {
      const code = pdu.readUInt32LE(18);
      if (code !== 0) this.#lastError = code;
    }
  }

  async #nextMcs(): Promise<McsPdu> {
    const packet = await readTpkt(this.#input, (header, body) =>
      this.#fastPath.receive(header, body),
    );
    return readMcsPdu(packet.subarray(3));
  }

  /** The next Send Data Indication's payload on the I/O channel; the clipboard's go to it. */
  async #nextData(): Promise<Buffer> {
    for (;;) {
      const pdu = await this.#nextMcs();
      if (pdu.kind === 'send-data-indication') {
        if (pdu.channelId === this.#ioChannel) return pdu.data;
        if (pdu.channelId === this.#clipboardChannelId) this.#clipboard?.receive(pdu.data);
        continue;
      }
      if (pdu.kind === 'disconnect') {
        // Set Error Info (2.2.5.1.1) said why, when the server sent one before leaving.
        const info = this.#lastError ? `, error info 0x${this.#lastError.toString(16)}` : '';
        throw new RdpProtocolError(`the server ended the session (reason ${pdu.reason}${info})`);
      }
    }
  }

  #write(channel: number, data: Buffer): void {
    this.#tls.write(tpkt(mcs.sendDataRequest(this.#userId, channel, data)));
  }
}

/**
 * Whether a slow-path PDU of the connection phase is a licensing one. Under TLS only licensing
 * PDUs carry a security header (its flags with SEC_LICENSE_PKT); every other PDU starts with a
 * share control header instead, whose first field is the PDU's own length. That length can have
 * the same bit set (a Demand Active of 0x019a bytes, as xrdp sends with fast-path on), so the
 * length is what tells them apart.
 */
export function isLicensingPdu(data: Buffer): boolean {
  if (data.length < 4) return false;
  const sharePdu = data.readUInt16LE(0) === data.length && (data.readUInt16LE(2) & 0xfff0) === 0x10;
  return !sharePdu && (data.readUInt16LE(0) & 0x0080) !== 0;
}
