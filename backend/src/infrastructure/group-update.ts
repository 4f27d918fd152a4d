import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { GroupCommit, type Waiting } from './group-commit';

interface KeyedUpdate<T> {
  filter: Filter<T> & { _id: unknown };
  update: UpdateFilter<T>;
}

/**
 * Single-document updates by `_id` whose callers need no result (marking a ledger entry applied or
 * settled), sent together as one ordered bulkWrite of updateOne (see GroupCommit). The embedded
 * database reads such a bulk in one query and writes it in one transaction. The updates must be
 * safe to apply twice (a `$set` under a guard): after a failed bulk, each is sent again alone.
 */
export class GroupUpdate<T extends Document> extends GroupCommit<KeyedUpdate<T>, void> {
  constructor(private readonly collection: () => Collection<T>) {
    super();
  }

  /** Resolves once the update was applied (or matched nothing). */
  updateOne(filter: KeyedUpdate<T>['filter'], update: UpdateFilter<T>): Promise<void> {
    return this.submit({ filter, update });
  }

  protected async write(batch: Waiting<KeyedUpdate<T>, void>[]): Promise<void> {
    if (batch.length === 1) return this.writeAlone(batch[0]);
    try {
      // Ordered, so two updates of one document in a batch apply in the order they were asked.
      await this.collection().bulkWrite(
        batch.map(({ item }) => ({ updateOne: { filter: item.filter, update: item.update } })),
        { ordered: true },
      );
      for (const waiting of batch) waiting.settle(null);
    } catch (err) {
      const first = err instanceof MongoBulkWriteError ? [err.writeErrors].flat()[0] : undefined;
      // A server's refusal carries its error code; the driver also wraps a lost connection in a
      // MongoBulkWriteError, with none.
      const refused = err instanceof MongoServerError && typeof err.code === 'number';
      if (first === undefined && refused) {
        // The server refused the command as a whole, without naming a statement: each goes
        // again on its own, so each caller gets its own answer.
        for (const waiting of batch) await this.writeAlone(waiting);
        return;
      }
      if (first === undefined) {
        // No answer at all (connection lost, no server): trying each alone would wait that out
        // once per update, with the queue behind them.
        for (const waiting of batch) waiting.settle(err as Error);
        return;
      }
      // An ordered bulk stops at its first failure: those before it were applied, those after it
      // were never tried and go out again.
      batch.slice(0, first.index).forEach((waiting) => waiting.settle(null));
      batch[first.index].settle(new Error(first.errmsg ?? 'update failed'));
      this.retryFirst(batch.slice(first.index + 1));
    }
  }

  private async writeAlone(waiting: Waiting<KeyedUpdate<T>, void>): Promise<void> {
    try {
      await this.collection().updateOne(waiting.item.filter, waiting.item.update);
      waiting.settle(null);
    } catch (err) {
      waiting.settle(err as Error);
    }
  }
}
