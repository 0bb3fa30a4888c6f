/**
 * A single-consumer async queue: producers push synchronously, the consumer pulls with
 * `for await`. Buffering is bounded so that a consumer that stopped reading fails loudly
 * instead of growing memory without limit.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | null =
    null;
  private state: 'open' | 'ended' | 'failed' = 'open';
  private error: unknown;

  constructor(
    private readonly maxBuffered: number,
    /** Called when the consumer stops early (`break` out of `for await`). */
    private readonly onReturn: () => void,
  ) {}

  get isOpen(): boolean {
    return this.state === 'open';
  }

  push(value: T): void {
    if (this.state !== 'open') return;
    if (this.waiter) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve({ value, done: false });
      return;
    }
    if (this.buffer.length >= this.maxBuffered) {
      this.fail(
        new Error(`consumer fell behind: more than ${this.maxBuffered} undelivered events`),
      );
      return;
    }
    this.buffer.push(value);
  }

  /** Ends the stream, after the buffered values unless the consumer asked to stop. */
  end({ discardBuffered = false } = {}): void {
    if (discardBuffered) this.buffer.length = 0;
    if (this.state !== 'open') return;
    this.state = 'ended';
    this.settleWaiter();
  }

  /** Fails the stream: buffered values are dropped, since the stream is no longer trustworthy. */
  fail(error: unknown): void {
    if (this.state !== 'open') return;
    this.state = 'failed';
    this.error = error;
    this.buffer.length = 0;
    this.settleWaiter();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: () => {
        this.onReturn();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0)
      return Promise.resolve({ value: this.buffer.shift() as T, done: false });
    if (this.state === 'ended') return Promise.resolve({ value: undefined, done: true });
    if (this.state === 'failed') return Promise.reject(this.error);
    if (this.waiter) return Promise.reject(new Error('EventQueue supports a single consumer'));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private settleWaiter(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = null;
    if (this.state === 'failed') waiter.reject(this.error);
    else waiter.resolve({ value: undefined, done: true });
  }
}
