import type { Collection, Document } from 'mongodb';
import { MongoBulkWriteError } from 'mongodb';

/** How many documents one insert may carry (well under MongoDB's 100,000 per batch). */
const MAX_BATCH = 500;

interface Waiting<T> {
  doc: T;
  settle(error: Error | null, inserted: boolean): void;
}

/**
 * Group commit for inserts that arrive one by one under load (ledger entries, log lines). The
 * first insert goes out at once; those that arrive while it is in flight wait for it and then go
 * together in one unordered insertMany. Each caller still awaits its own document being written,
 * so nothing is acknowledged early: only round trips are shared.
 */
export class GroupInsert<T extends Document> {
  private queue: Waiting<T>[] = [];
  private flushing = false;

  constructor(private readonly collection: () => Collection<T>) {}

  /** True when the document was written, false when its unique key was already there. */
  insert(doc: T): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ doc, settle: (error, inserted) => (error ? reject(error) : resolve(inserted)) });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) await this.write(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Waiting<T>[]): Promise<void> {
    try {
      // Documents carry their own _id.
      await this.collection().insertMany(batch.map((waiting) => waiting.doc) as never, { ordered: false });
      for (const waiting of batch) waiting.settle(null, true);
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) {
        for (const waiting of batch) waiting.settle(err as Error, false);
        return;
      }
      // Unordered: every document not listed in writeErrors was written.
      const failed = new Map<number, { code?: number; errmsg?: string }>();
      for (const writeError of [err.writeErrors].flat()) failed.set(writeError.index, writeError);
      batch.forEach((waiting, index) => {
        const problem = failed.get(index);
        if (!problem) waiting.settle(null, true);
        else if (problem.code === 11000)
          waiting.settle(null, false); // already there
        else waiting.settle(new Error(problem.errmsg ?? 'insert failed'), false);
      });
    }
  }
}
