/** The most of a container's log kept: older output is dropped, as a node rotates logs. */
const maxLogBytes = 1024 * 1024;

/** One container's log: what was written so far, and who follows it (`logs -f`). */
export class ContainerLog {
  #chunks: Buffer[] = [];
  #length = 0;
  #followers = new Set<(chunk: Buffer) => void>();
  #ended = new Set<() => void>();

  append(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#chunks.push(bytes);
    this.#length += bytes.length;
    while (this.#length > maxLogBytes && this.#chunks.length > 1) {
      this.#length -= this.#chunks.shift()!.length;
    }
    for (const follower of this.#followers) follower(bytes);
  }

  text(): Buffer {
    return Buffer.concat(this.#chunks, this.#length);
  }

  /** Calls `onChunk` with what is appended from now on, `onEnd` when the pod goes; returns the unsubscribe. */
  follow(onChunk: (chunk: Buffer) => void, onEnd: () => void): () => void {
    this.#followers.add(onChunk);
    this.#ended.add(onEnd);
    return () => {
      this.#followers.delete(onChunk);
      this.#ended.delete(onEnd);
    };
  }

  /** The pod is gone: followers' streams end. */
  end(): void {
    for (const onEnd of [...this.#ended]) onEnd();
    this.#followers.clear();
    this.#ended.clear();
  }
}
