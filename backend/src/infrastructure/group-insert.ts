import type { Collection, Document } from 'mongodb';
import { MongoBulkWriteError } from 'mongodb';
import { GroupCommit, type Waiting } from './group-commit';

/**
 * Inserts that arrive one by one under load (ledger entries, log lines), sent together in one
 * unordered insertMany (see GroupCommit).
 */
export class GroupInsert<T extends Document> extends GroupCommit<T, boolean> {
  constructor(private readonly collection: () => Collection<T>) {
    super();
  }

  /** True when the document was written, false when its unique key was already there. */
  insert(doc: T): Promise<boolean> {
    return this.submit(doc);
  }

  protected async write(batch: Waiting<T, boolean>[]): Promise<void> {
    try {
      // Documents carry their own _id.
      await this.collection().insertMany(batch.map((waiting) => waiting.item) as never, { ordered: false });
      for (const waiting of batch) waiting.settle(null, true);
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) {
        for (const waiting of batch) waiting.settle(err as Error);
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
        else waiting.settle(new Error(problem.errmsg ?? 'insert failed'));
      });
    }
  }
}
