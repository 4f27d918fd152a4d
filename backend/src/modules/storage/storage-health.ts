import type Redis from 'ioredis';
import type { StorageState } from '@studio/contracts';
import { RecentFaults } from '../../infrastructure/recent-faults';
import { StorageFaultError, StoragePort, type ByteRange, type StoredObject } from './storage.port';

type Fault = Exclude<StorageState, 'up'>;

/**
 * Whether the content store works, as the writes and reads of every process found it: a full disk
 * or an S3 that answers 5xx or stalls is marked when met (RecentFaults: shared through Redis,
 * expiring) and cleared by the next write that succeeds, in any process. /api/health reads it.
 */
export class StorageHealth {
  private readonly faults: RecentFaults<Fault>;

  constructor(redis: Redis, prefix: string) {
    this.faults = new RecentFaults(redis, `${prefix}:fault`);
  }

  faulted(fault: Fault): void {
    void this.faults.mark('storage', fault);
  }

  wrote(): void {
    this.faults.succeeded('storage');
  }

  /** 'up', or the fault met lately; rejects when Redis does (the caller bounds it). */
  async state(): Promise<StorageState> {
    const [mark] = await this.faults.read(['storage']);
    return mark?.kind ?? 'up';
  }
}

/** The chosen adapter, with its faults reported to StorageHealth. */
export class WatchedStorage extends StoragePort {
  private requestView?: StoragePort;

  constructor(
    private readonly inner: StoragePort,
    private readonly health: StorageHealth,
  ) {
    super();
  }

  override forRequest(): StoragePort {
    const view = this.inner.forRequest();
    if (view === this.inner) return this;
    this.requestView ??= new WatchedStorage(view, this.health);
    return this.requestView;
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.inner.put(key, data).catch(this.seen);
    this.health.wrote();
  }

  get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    return this.inner.get(key, range).catch(this.seen);
  }

  override read(key: string): Promise<Buffer | null> {
    return this.inner.read(key).catch(this.seen);
  }

  size(key: string): Promise<number | null> {
    return this.inner.size(key).catch(this.seen);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key).catch(this.seen);
  }

  destroy(): void {
    (this.inner as { destroy?: () => void }).destroy?.();
  }

  private readonly seen = (err: unknown): never => {
    if (err instanceof StorageFaultError) this.health.faulted(err.fault);
    throw err;
  };
}
