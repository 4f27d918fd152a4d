/**
 * Runs tasks with the same key one after another (different keys in parallel). The ledger uses it
 * per account so that one process does not race itself on the balance's compare-and-set; other
 * processes are kept honest by the database's unique index, this only cuts needless retries.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
