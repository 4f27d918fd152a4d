import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';

/**
 * The balance as a chain of versions: each ledger change inserts the next version. The unique
 * index on (account, version) is the compare-and-set — of two writers that read the same head
 * only one can insert version n+1 — and the unique entryId applies each ledger entry at most once.
 *
 * Why not `$inc` on the account: FerretDB (our local and test database) runs an update as read,
 * modify in Go, write back, so concurrent `$inc`s lose updates; unique indexes are enforced by
 * its storage engine and hold under concurrency, on FerretDB and MongoDB alike. FerretDB also
 * pushes down only _id lookups, so the head is found by probing _ids from a hint on the account.
 */
@Schema({ collection: 'balance_versions', versionKey: false })
export class BalanceVersion {
  /** `<accountId>:<version>`: the unique _id is the compare-and-set, and reads by _id are fast. */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Types.ObjectId, required: true })
  accountId!: Types.ObjectId;

  @Prop({ required: true })
  version!: number;

  @Prop({ required: true, min: 0 })
  balance!: number;

  /** The ledger entry this version applies (unique: an entry applies once). */
  @Prop({ required: true, unique: true })
  entryId!: string;

  @Prop({ required: true, default: () => new Date() })
  at!: Date;
}

export const BalanceVersionSchema = SchemaFactory.createForClass(BalanceVersion);
BalanceVersionSchema.index({ accountId: 1, version: -1 });
