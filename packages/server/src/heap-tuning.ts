import v8 from 'node:v8';

/** How far V8 lets the old generation grow past what survived the last full collection. */
export const heapGrowingPercent = 200;

/**
 * Gives the server's old generation room to grow to three times what survives a full
 * collection before V8 starts marking again (V8 otherwise picks a factor between about 1.1 and
 * 4 from its own speed estimates).
 *
 * Why: relaying a bulk copy (scp through the SSH proxy) allocates buffers at several hundred
 * MB/s. With ~35 MB live, V8 would often settle on a limit that left less headroom than its
 * young generation (32 MB), and below that headroom it starts incremental marking at once: one
 * mark-compact every ~50 ms instead of one a minute, three times the CPU per MiB relayed and a
 * third off the copy's speed for as long as the loop held (docs/ssh-proxy.md, "Speed"). The flag
 * is read each time V8 computes the limit, so setting it at start-up takes effect; the price is
 * at most twice the live heap in garbage between collections.
 */
export function tuneHeapForRelaying(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
}
