import type { ClientChannel } from 'ssh2';
import { takeOverIncomingWindow } from './ssh2-internals.js';

/**
 * Bounds what the proxy holds of one channel's output: bytes the node may still send (the
 * window we granted) plus bytes received and not yet read, together at most `capBytes`. ssh2
 * alone keeps granting up to 2 MiB while its stream buffers another 2 MiB, so a paused session
 * (a slow browser under `yes`) held over 3 MiB here. Credit is given back only as the reader
 * consumes, in batches of a quarter of the cap, so a paused reader stops the node at the cap.
 *
 * ssh2 granted 2 MiB when the channel opened, which cannot be taken back: until the node has
 * used that up, the bound is that initial window instead.
 */
export function capIncomingWindow(client: object, channel: ClientChannel, capBytes: number): void {
  const held = () => channel.readableLength + channel.stderr.readableLength;
  const window = takeOverIncomingWindow(client, channel, () => topUp());
  const topUp = () => {
    const room = capBytes - window.side.incoming.window - held();
    if (room >= capBytes / 4) window.grant(room);
  };
  // Each chunk the reader takes frees room; ssh2 never asks again once its count is low.
  channel.on('data', topUp);
  channel.stderr.on('data', topUp);
}
