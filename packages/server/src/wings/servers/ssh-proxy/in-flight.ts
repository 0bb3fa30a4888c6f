import { capOutgoingWindow, outgoingPacketSize } from '../../../ssh/ssh2-internals.js';

/** Bulk data the proxy keeps in flight towards an OpenSSH peer (it grants 2 MiB). */
export const openSshInFlight = 512 * 1024;

/**
 * Keeps at most `openSshInFlight` of a bulk copy in flight towards the OpenSSH process that
 * receives it: the client's `ssh` on a jump channel, sshd on the node leg of an SFTP session.
 * With the full 2 MiB it grants in flight, that process buffers up to 2 MiB (and the sockets
 * between hold the rest); with 512 KiB the whole pipeline spends less CPU per MiB and scp got
 * 4% (downloads) to 10% (uploads) faster on a 2-core machine (docs/ssh-proxy.md, "Speed").
 *
 * Safe only because OpenSSH sends WINDOW_ADJUST once it has consumed three of its packets
 * (channels.c, channel_check_window, the same in every release since at least 5.x), so the
 * cap is kept above four packets. Other implementations may wait until half their window is
 * used up (ssh2, which our node service runs, does): they keep the window they granted.
 */
export function limitInFlight(channel: object, software: string | undefined): void {
  if (!software?.startsWith('OpenSSH_')) return;
  const packet = outgoingPacketSize(channel) ?? 32 * 1024;
  capOutgoingWindow(channel, Math.max(openSshInFlight, 4 * packet));
}
