import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type Redis from 'ioredis';
import type { AnyBulkWriteOperation, ObjectId } from 'mongodb';
import type { Model } from 'mongoose';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { AuditEntry } from './audit-entry.schema';
import { authorKey } from './audit.service';

const BATCH = 1000;
const LOCK_MS = 30 * 60_000;

/**
 * One-time upgrades of the log written by older versions, run in the background at boot by one
 * process: entries written before `authorKey` existed get it, so the indexed user filter finds
 * them. Walks the log once by _id (keyset, 1,000 at a time); Redis remembers that it is done.
 */
@Injectable()
export class AuditUpgrade implements OnApplicationBootstrap {
  private readonly log = new Logger(AuditUpgrade.name);
  private readonly doneKey: string;
  private readonly lockKey: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectModel(AuditEntry.name) private readonly model: Model<AuditEntry>,
  ) {
    this.doneKey = `${config.REDIS_PREFIX}:{audit-upgrade}:author-keys`;
    this.lockKey = `${this.doneKey}:lock`;
  }

  onApplicationBootstrap(): void {
    void this.run().catch((err: Error) => this.log.warn(`log upgrade failed: ${err.message}`));
  }

  /** Upgrades the log unless that was done (or another process is doing it). */
  async run(): Promise<void> {
    if (await this.redis.exists(this.doneKey)) return;
    if (!(await this.redis.set(this.lockKey, '1', 'PX', LOCK_MS, 'NX'))) return; // another process
    try {
      const keyed = await this.backfillAuthorKeys();
      await this.redis.set(this.doneKey, String(Date.now()));
      if (keyed) this.log.log(`gave ${keyed} old log entries their author key`);
    } finally {
      await this.redis.del(this.lockKey);
    }
  }

  private async backfillAuthorKeys(): Promise<number> {
    let keyed = 0;
    let last: ObjectId | undefined;
    for (;;) {
      const rows = await this.model.collection
        .find<{ _id: ObjectId; author?: { username?: string }; authorKey?: string }>(
          last ? { _id: { $gt: last } } : { _id: { $type: 'objectId' } },
          { projection: { _id: 1, author: 1, authorKey: 1 } },
        )
        .sort({ _id: 1 })
        .limit(BATCH)
        .toArray();
      if (!rows.length) return keyed;
      const updates: AnyBulkWriteOperation[] = [];
      for (const row of rows) {
        const name = row.author?.username;
        if (typeof name === 'string' && !row.authorKey) {
          updates.push({
            updateOne: { filter: { _id: row._id }, update: { $set: { authorKey: authorKey(name) } } },
          });
        }
      }
      if (updates.length) await this.model.collection.bulkWrite(updates, { ordered: false });
      keyed += updates.length;
      last = rows[rows.length - 1]._id;
    }
  }
}
