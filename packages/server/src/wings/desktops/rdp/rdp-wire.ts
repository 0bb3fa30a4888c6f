/**
 * The layers under RDP's own PDUs (MS-RDPBCGR 2.2.1): TPKT (RFC 1006) frames, X.224 (ISO 8073)
 * connection and data TPDUs, and T.125 MCS, whose connect PDUs are BER and whose domain PDUs
 * are PER (ALIGNED). Only what a client needs is here.
 */

export class RdpProtocolError extends Error {}

/** TPKT: version 3, a reserved byte, then the length of the whole packet. */
export function tpkt(payload: Buffer): Buffer {
  const header = Buffer.from([3, 0, 0, 0]);
  header.writeUInt16BE(payload.length + 4, 2);
  return Buffer.concat([header, payload]);
}

/** X.224 Data TPDU header (LI 2, DT, EOT): what every packet after the connection carries. */
export const x224Data = Buffer.from([0x02, 0xf0, 0x80]);

/**
 * RDP_NEG_REQ's protocols (2.2.1.1.1): TLS, and TLS with CredSSP (NLA) on top. Never RDP's own
 * encryption (protocol 0).
 */
export const protocolSsl = 0x00000001;
export const protocolHybrid = 0x00000002;

/** X.224 Connection Request with a routing cookie and RDP_NEG_REQ asking for `protocols`. */
export function connectionRequest(user: string, protocols = protocolSsl): Buffer {
  const cookie = Buffer.from(`Cookie: mstshash=${user.replace(/[^\w.@-]/g, '').slice(0, 9)}\r\n`);
  const negotiation = Buffer.alloc(8);
  negotiation.writeUInt8(0x01, 0); // TYPE_RDP_NEG_REQ
  negotiation.writeUInt16LE(8, 2);
  negotiation.writeUInt32LE(protocols, 4);
  const body = Buffer.concat([Buffer.from([0xe0, 0, 0, 0, 0, 0]), cookie, negotiation]);
  return tpkt(Buffer.concat([Buffer.from([body.length]), body]));
}

/** The protocol the server chose in its Connection Confirm, or why it refused. */
export function readConnectionConfirm(tpdu: Buffer): number {
  if (tpdu.length < 7 || (tpdu[1]! & 0xf0) !== 0xd0) {
    throw new RdpProtocolError('the server did not confirm the X.224 connection');
  }
  const negotiation = tpdu.subarray(7);
  if (negotiation.length < 8) return 0; // an old server: standard RDP security only
  const type = negotiation.readUInt8(0);
  const value = negotiation.readUInt32LE(4);
  if (type === 0x03) {
    const reason = negotiationFailures[value] ?? `RDP_NEG_FAILURE code ${value}`;
    throw new RdpProtocolError(`the server refused the connection (${reason})`);
  }
  return value;
}

/** RDP_NEG_FAILURE's codes (2.2.1.2.2), as the session's reason says them. */
const negotiationFailures: Record<number, string> = {
  1: 'it requires TLS',
  2: 'it does not allow TLS',
  3: 'it has no TLS certificate',
  4: 'inconsistent security flags',
  5: 'it requires NLA, which needs a password for the login',
  6: 'it requires TLS with client certificates',
};

// BER (the MCS connect PDUs).

export function berLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  if (length < 0x100) return Buffer.from([0x81, length]);
  return Buffer.from([0x82, length >> 8, length & 0xff]);
}

function berTagged(tag: number[], contents: Buffer): Buffer {
  return Buffer.concat([Buffer.from(tag), berLength(contents.length), contents]);
}

const berInteger = (value: number) => {
  if (value < 0x80) return berTagged([0x02], Buffer.from([value]));
  if (value < 0x8000) return berTagged([0x02], Buffer.from([value >> 8, value & 0xff]));
  return berTagged(
    [0x02],
    Buffer.from([0, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]),
  );
};

function domainParameters(values: number[]): Buffer {
  return berTagged([0x30], Buffer.concat(values.map(berInteger)));
}

/** MCS Connect-Initial (T.125 §7, application tag 101) carrying the GCC request. */
export function mcsConnectInitial(gccUserData: Buffer): Buffer {
  const contents = Buffer.concat([
    berTagged([0x04], Buffer.from([1])), // callingDomainSelector
    berTagged([0x04], Buffer.from([1])), // calledDomainSelector
    berTagged([0x01], Buffer.from([0xff])), // upwardFlag
    domainParameters([34, 2, 0, 1, 0, 1, 0xffff, 2]),
    domainParameters([1, 1, 1, 1, 0, 1, 0x420, 2]),
    domainParameters([0xffff, 0xfc17, 0xffff, 1, 0, 1, 0xffff, 2]),
    berTagged([0x04], gccUserData),
  ]);
  return Buffer.concat([x224Data, berTagged([0x7f, 0x65], contents)]);
}

// PER (GCC and the MCS domain PDUs).

export function perLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  return Buffer.from([0x80 | (length >> 8), length & 0xff]);
}

/** GCC Conference Create Request (T.124) around the client data blocks (2.2.1.3). */
export function gccConferenceCreateRequest(clientData: Buffer): Buffer {
  const request = Buffer.concat([
    // ConnectGCCPDU conferenceCreateRequest, its name "1", and the "Duca" H.221 key.
    Buffer.from([0x00, 0x08, 0x00, 0x10, 0x00, 0x01, 0xc0, 0x00, 0x44, 0x75, 0x63, 0x61]),
    perLength(clientData.length),
    clientData,
  ]);
  // Key: object identifier t124Identifier {0 0 20 124 0 1}, then the ConnectPDU's length.
  return Buffer.concat([
    Buffer.from([0x00, 0x05, 0x00, 0x14, 0x7c, 0x00, 0x01]),
    perLength(request.length),
    request,
  ]);
}

/**
 * The server data blocks of an MCS Connect-Response (2.2.1.4): found after the GCC response's
 * "McDn" H.221 key, as `type → block` (the blocks' own headers removed).
 */
export function readConnectResponse(packet: Buffer): Map<number, Buffer> {
  const marker = packet.indexOf('McDn');
  if (packet[0] !== 0x7f || packet[1] !== 0x66 || marker < 0) {
    throw new RdpProtocolError('the server did not answer MCS Connect-Initial');
  }
  const result = packet.indexOf(Buffer.from([0x0a, 0x01]));
  if (result >= 0 && result < marker && packet[result + 2] !== 0) {
    throw new RdpProtocolError(
      `the server refused the MCS connection (result ${packet[result + 2]})`,
    );
  }
  let at = marker + 4;
  at += packet[at]! & 0x80 ? 2 : 1;
  const blocks = new Map<number, Buffer>();
  while (at + 4 <= packet.length) {
    const type = packet.readUInt16LE(at);
    const length = packet.readUInt16LE(at + 2);
    if (length < 4 || at + length > packet.length) break;
    blocks.set(type, packet.subarray(at + 4, at + length));
    at += length;
  }
  return blocks;
}

export const mcs = {
  erectDomainRequest: () => Buffer.concat([x224Data, Buffer.from([0x04, 0x01, 0x00, 0x01, 0x00])]),
  attachUserRequest: () => Buffer.concat([x224Data, Buffer.from([0x28])]),
  channelJoinRequest(userId: number, channelId: number) {
    const body = Buffer.alloc(5);
    body.writeUInt8(0x38, 0);
    body.writeUInt16BE(userId - 1001, 1);
    body.writeUInt16BE(channelId, 3);
    return Buffer.concat([x224Data, body]);
  },
  /** Send Data Request (client → server) of `data` on `channelId`. */
  sendDataRequest(userId: number, channelId: number, data: Buffer) {
    const header = Buffer.alloc(6);
    header.writeUInt8(0x64, 0);
    header.writeUInt16BE(userId - 1001, 1);
    header.writeUInt16BE(channelId, 3);
    header.writeUInt8(0x70, 5);
    return Buffer.concat([x224Data, header, perLength(data.length), data]);
  },
};

/** MCS domain PDUs the client reads: their kind from the first byte (T.125 DomainMCSPDU). */
export type McsPdu =
  | { kind: 'attach-user-confirm'; result: number; userId: number }
  | { kind: 'channel-join-confirm'; result: number; channelId: number }
  | { kind: 'send-data-indication'; channelId: number; data: Buffer }
  | { kind: 'disconnect'; reason: number }
  | { kind: 'other'; choice: number };

export function readMcsPdu(packet: Buffer): McsPdu {
  const choice = packet[0]! >> 2;
  switch (choice) {
    case 11:
      return {
        kind: 'attach-user-confirm',
        result: packet[1]!,
        userId: 1001 + packet.readUInt16BE(2),
      };
    case 15:
      return {
        kind: 'channel-join-confirm',
        result: packet[1]!,
        channelId: packet.readUInt16BE(6),
      };
    case 26: {
      const channelId = packet.readUInt16BE(3);
      let at = 6;
      let length = packet[at]!;
      if (length & 0x80) {
        length = ((length & 0x3f) << 8) | packet[at + 1]!;
        at += 2;
      } else at += 1;
      return { kind: 'send-data-indication', channelId, data: packet.subarray(at, at + length) };
    }
    case 8:
      return { kind: 'disconnect', reason: ((packet[0]! & 0x03) << 1) | (packet[1]! >> 7) };
    default:
      return { kind: 'other', choice };
  }
}
