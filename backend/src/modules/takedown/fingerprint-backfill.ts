import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { runsQueue } from '../engines';
import { FoldersService } from '../folders';
import { StoragePort } from '../storage';
import { CopyFinder } from './copy-finder';

const PAGE = 50;
const LOCK_MS = 10 * 60_000;

/**
 * Hashes the image outputs stored before the copy finder existed (or while it failed), so reports
 * find them too. Runs once at a worker's start (one worker at a time, by a Redis lock renewed per
 * page), in the background; hashing is on the engine pool. Idempotent: hashed items are skipped.
 */
@Injectable()
export class FingerprintBackfill implements OnApplicationBootstrap {
  private readonly logger = new Logger(FingerprintBackfill.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly folders: FoldersService,
    private readonly storage: StoragePort,
    private readonly copies: CopyFinder,
  ) {}

  onApplicationBootstrap(): void {
    // Tests run it themselves; API-only processes leave it to the workers.
    if (this.config.NODE_ENV === 'test' || !runsQueue(this.config, 'clone')) return;
    void this.runLocked().catch((err: unknown) => this.logger.warn(`hash backfill stopped: ${String(err)}`));
  }

  private async runLocked(): Promise<void> {
    const key = `${this.config.REDIS_PREFIX}:fingerprint-backfill`;
    if ((await this.redis.set(key, String(process.pid), 'PX', LOCK_MS, 'NX')) !== 'OK') return;
    try {
      const { scanned, added } = await this.run(() => this.redis.pexpire(key, LOCK_MS).then(() => undefined));
      this.logger.log(`hash backfill: ${added} of ${scanned} image outputs hashed`);
    } finally {
      await this.redis.del(key);
    }
  }

  /** Hashes every image item without hashes; returns how many were looked at and hashed. */
  async run(
    onPage: () => Promise<void> = async () => undefined,
  ): Promise<{ scanned: number; added: number }> {
    let after: string | null = null;
    let scanned = 0;
    let added = 0;
    for (;;) {
      const items = await this.folders.imageItemsAfter(after, PAGE);
      if (items.length === 0) return { scanned, added };
      after = items[items.length - 1].id;
      scanned += items.length;
      const missing = await this.copies.unhashed(
        items.filter((item) => !item.takenDown).map((item) => item.id),
      );
      for (const item of items.filter((i) => missing.has(i.id))) {
        const data = await this.storage.read(item.storageKey);
        if (!data) continue;
        const [print] = await this.copies.fingerprint([data], true).catch((err: unknown) => {
          this.logger.warn(`item ${item.id} not hashed: ${String(err)}`);
          return [];
        });
        if (!print) continue;
        await this.copies.record([{ itemId: item.id, ownerId: item.ownerId, print }]);
        added++;
      }
      await onPage();
    }
  }
}
