/** How many writes one round trip may carry (well under MongoDB's 100,000 per batch). */
const MAX_BATCH = 500;

/** One caller's write, waiting for the round trip that carries it. */
export interface Waiting<T, R> {
  item: T;
  settle(error: Error | null, result?: R): void;
}

/**
 * Group commit for writes that arrive one by one under load. The first goes out at once; those that
 * arrive while it is in flight wait for it and then go together in one round trip. Each caller
 * still awaits its own write, so nothing is acknowledged early: only round trips are shared.
 */
export abstract class GroupCommit<T, R> {
  private queue: Waiting<T, R>[] = [];
  private flushing = false;

  protected submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, settle: (error, result) => (error ? reject(error) : resolve(result as R)) });
      if (!this.flushing) void this.flush();
    });
  }

  /** Puts writes back at the head of the queue, for the next round trip. */
  protected retryFirst(waiting: Waiting<T, R>[]): void {
    this.queue.unshift(...waiting);
  }

  /** Writes one batch and settles every caller in it. */
  protected abstract write(batch: Waiting<T, R>[]): Promise<void>;

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) await this.write(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.flushing = false;
    }
  }
}
