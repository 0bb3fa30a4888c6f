import type { ClientChannel } from 'ssh2';
import { offerOnNextSession, takeOverIncomingWindow } from './ssh2-internals.js';

/**
 * Bounds what the proxy holds of one channel's output: bytes the node may still send (the
 * window we granted) plus bytes received and not yet read, together at most `capBytes`. ssh2
 * alone offers 2 MiB, tops it up to 2 MiB while its stream buffers another 2 MiB, so a paused
 * session (a slow browser under `yes`) held over 3 MiB here. Credit is given back only as the
 * reader consumes, in batches of a quarter of the cap, so a paused reader stops the node at
 * the cap.
 *
 * Two steps around opening the channel: `before` makes ssh2 offer the cap instead of 2 MiB,
 * `after` (once the session's readers are attached) takes the window over.
 */
export function cappedIncomingWindow(client: object, capBytes: number) {
  return {
    before: () => offerOnNextSession(client, { window: capBytes }),
    after(channel: ClientChannel): void {
      const held = () => channel.readableLength + channel.stderr.readableLength;
      const window = takeOverIncomingWindow(client, channel, () => topUp(), capBytes);
      const topUp = () => {
        const room = capBytes - window.side.incoming.window - held();
        if (room >= capBytes / 4) window.grant(room);
      };
      // Each chunk the reader takes frees room; ssh2 never asks again once its count is low.
      channel.on('data', topUp);
      channel.stderr.on('data', topUp);
      topUp();
    },
  };
}
