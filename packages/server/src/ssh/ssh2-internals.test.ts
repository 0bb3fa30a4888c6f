import { describe, expect, it } from 'vitest';
import { offerOnNextSession } from './ssh2-internals.js';

/** An ssh2 client's protocol as offerOnNextSession sees it: it records each session it opens. */
function fakeClient() {
  const opened: number[][] = [];
  class Protocol {
    session(channel: number, window: number, maxPacket: number) {
      opened.push([channel, window, maxPacket]);
    }
  }
  return { client: { _protocol: new Protocol() }, opened };
}

describe('offerOnNextSession', () => {
  it('offers the given window and packet size on the next session only', () => {
    const { client, opened } = fakeClient();
    offerOnNextSession(client, { window: 65_536, packetSize: 32_670 });
    client._protocol.session(0, 2 * 1024 * 1024, 32_768);
    client._protocol.session(1, 2 * 1024 * 1024, 32_768);
    expect(opened).toEqual([
      [0, 65_536, 32_670],
      [1, 2 * 1024 * 1024, 32_768],
    ]);
  });

  it('keeps ssh2’s figure for what is not given, and never offers a bigger packet', () => {
    const { client, opened } = fakeClient();
    offerOnNextSession(client, { packetSize: 64 * 1024 });
    client._protocol.session(0, 2 * 1024 * 1024, 32_768);
    expect(opened).toEqual([[0, 2 * 1024 * 1024, 32_768]]);
  });

  it('fails loudly when ssh2 no longer opens sessions this way', () => {
    expect(() => offerOnNextSession({ _protocol: {} }, { packetSize: 1 })).toThrow(
      /ssh2 internals changed/,
    );
  });
});
