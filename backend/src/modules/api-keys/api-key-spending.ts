import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { ApiKeyMessages, spendMonth } from '@studio/contracts';
import { ApiKeySpend } from './api-key.schema';

/** The part of a job that says which key paid for it, kept on the job for its refund. */
export interface KeyCharge {
  keyId: string;
  /** The month the coins were counted in (a refund gives them back to that month). */
  month: string;
}

const entryOf = (jobId: string, coins: number) => `${jobId}:${coins}`;
const DUPLICATE_KEY = 11000;

/**
 * Each key's monthly spending cap. A job's coins are counted against its key before the ledger
 * reserves them and given back when the ledger refunds them: both are one guarded atomic update of
 * the key's month document (see ApiKeySpend), so parallel submissions cannot pass the cap together
 * and a job is counted and given back at most once.
 */
@Injectable()
export class ApiKeySpending {
  constructor(@InjectModel(ApiKeySpend.name) private readonly spends: Model<ApiKeySpend>) {}

  /**
   * Counts `coins` of job `jobId` against the key's month if the cap allows (402 otherwise, nothing
   * counted). Returns what to keep on the job for its refund.
   */
  async charge(key: { id: string; monthlyCap?: number }, jobId: string, coins: number): Promise<KeyCharge> {
    const month = spendMonth();
    const _id = `${key.id}:${month}`;
    const entry = entryOf(jobId, coins);
    const guard =
      key.monthlyCap === undefined ? {} : { coins: { $lte: Math.max(-1, key.monthlyCap - coins) } };
    const count = () =>
      this.spends
        .findOneAndUpdate(
          { _id, jobs: { $ne: entry }, ...guard },
          { $inc: { coins }, $push: { jobs: entry } },
        )
        .lean();
    // One guarded write when the month's document exists (every submission but a month's first).
    let counted = await count();
    if (!counted && !(await this.spends.exists({ _id }))) {
      await this.spends
        .updateOne({ _id }, { $setOnInsert: { coins: 0, jobs: [] } }, { upsert: true })
        .catch((err: { code?: number }) => {
          if (err?.code !== DUPLICATE_KEY) throw err; // another request made it first
        });
      counted = await count();
    }
    if (!counted && !(await this.spends.exists({ _id, jobs: entry }))) {
      throw new HttpException(ApiKeyMessages.capReached(key.monthlyCap ?? 0), HttpStatus.PAYMENT_REQUIRED);
    }
    return { keyId: key.id, month };
  }

  /** Gives back what `charge` counted for the job (its refund, or a request that went no further); once. */
  async giveBack(charge: KeyCharge, jobId: string, coins: number): Promise<void> {
    const entry = entryOf(jobId, coins);
    await this.spends.updateOne(
      { _id: `${charge.keyId}:${charge.month}`, jobs: entry },
      { $inc: { coins: -coins }, $pull: { jobs: entry } },
    );
  }
}
