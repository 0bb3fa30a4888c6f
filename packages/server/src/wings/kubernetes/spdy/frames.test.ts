import { describe, expect, it } from 'vitest';
import { FrameReader } from './frame-reader.js';
import { decodeFrame } from './frame-decode.js';
import { encodeFrame, SpdyProtocolError, type Frame } from './frames.js';

const examples: Frame[] = [
  { type: 'data', streamId: 5, fin: false, data: Buffer.from('hello') },
  { type: 'data', streamId: 0x7fffffff, fin: true, data: Buffer.alloc(0) },
  {
    type: 'syn_stream',
    streamId: 1,
    associatedToStreamId: 0,
    priority: 3,
    fin: false,
    unidirectional: false,
    headerBlock: Buffer.from([1, 2, 3]),
  },
  {
    type: 'syn_stream',
    streamId: 2,
    associatedToStreamId: 1,
    priority: 7,
    fin: true,
    unidirectional: true,
    headerBlock: Buffer.alloc(0),
  },
  { type: 'syn_reply', streamId: 3, fin: true, headerBlock: Buffer.from('block') },
  { type: 'rst_stream', streamId: 9, status: 5 },
  {
    type: 'settings',
    clear: true,
    entries: [
      { flags: 1, id: 7, value: 262144 },
      { flags: 0, id: 4, value: 100 },
    ],
  },
  { type: 'ping', id: 0xfffffffe },
  { type: 'goaway', lastGoodStreamId: 7, status: 1 },
  { type: 'headers', streamId: 11, fin: false, headerBlock: Buffer.from('more') },
  { type: 'window_update', streamId: 0, delta: 0x7fffffff },
];

describe('SPDY/3 frame codec', () => {
  const named = (frame: Frame) =>
    `${frame.type}${'fin' in frame && frame.fin ? ' with FIN' : ''}${'unidirectional' in frame && frame.unidirectional ? ', unidirectional' : ''}`;
  it.each(examples.map((frame) => [named(frame), frame] as const))(
    'round-trips %s',
    (_type, frame) => {
      const bytes = encodeFrame(frame);
      expect(decodeFrame(bytes, 0, 1 << 24)).toEqual({ frame, next: bytes.length });
    },
  );

  it('writes control frames with version 3 and the type in the first word', () => {
    const bytes = encodeFrame({ type: 'ping', id: 1 });
    expect([...bytes]).toEqual([0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 1]);
  });

  it('waits for a frame that is not complete yet', () => {
    const bytes = encodeFrame({ type: 'data', streamId: 1, fin: false, data: Buffer.alloc(100) });
    expect(decodeFrame(bytes.subarray(0, 7), 0, 1 << 24)).toBeUndefined();
    expect(decodeFrame(bytes.subarray(0, 107), 0, 1 << 24)).toBeUndefined();
  });

  it('reassembles frames from arbitrary chunk boundaries', () => {
    const stream = Buffer.concat(examples.map(encodeFrame));
    const reader = new FrameReader(1 << 24);
    const frames: Frame[] = [];
    for (let at = 0; at < stream.length; at += 3) {
      frames.push(...reader.push(stream.subarray(at, at + 3)));
    }
    expect(frames).toEqual(examples);
  });

  it('ignores control frames of unknown types, as the spec asks', () => {
    const bytes = Buffer.from([0x80, 0x03, 0x00, 0x0a, 0, 0, 0, 2, 0xaa, 0xbb]);
    expect(decodeFrame(bytes, 0, 1 << 24)?.frame).toEqual({ type: 'unknown', controlType: 10 });
  });

  const malformed: [string, Buffer][] = [
    ['another SPDY version', Buffer.from([0x80, 0x02, 0x00, 0x06, 0, 0, 0, 4, 0, 0, 0, 1])],
    ['a data frame on stream 0', Buffer.from([0, 0, 0, 0, 0, 0, 0, 1, 42])],
    ['a PING of 3 bytes', Buffer.from([0x80, 0x03, 0x00, 0x06, 0, 0, 0, 3, 0, 0, 1])],
    ['a RST_STREAM on stream 0', Buffer.from([0x80, 3, 0, 3, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1])],
    ['a short SYN_STREAM', Buffer.from([0x80, 3, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1])],
    ['a WINDOW_UPDATE of 0', Buffer.from([0x80, 3, 0, 9, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0])],
    ['SETTINGS that lie about their count', Buffer.from([0x80, 3, 0, 4, 0, 0, 0, 4, 0, 0, 0, 9])],
  ];
  it.each(malformed)('refuses %s', (_what, bytes) => {
    expect(() => decodeFrame(bytes, 0, 1 << 24)).toThrow(SpdyProtocolError);
  });

  it('refuses a frame over the limit from its header alone, before the body arrives', () => {
    const header = Buffer.from([0, 0, 0, 1, 0, 0x10, 0, 0]); // 1 MiB of data announced
    expect(() => new FrameReader(64 * 1024).push(header)).toThrow(/exceeds the limit/);
  });
});
