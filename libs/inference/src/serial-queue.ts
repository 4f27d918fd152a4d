/** Runs async tasks one at a time, in the order they were submitted. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** Tasks waiting or running. */
  get size(): number {
    return this.pending;
  }

  run<T>(task: () => T | Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(task).finally(() => this.pending--);
    // The next task waits for this one whether it succeeded or failed.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
