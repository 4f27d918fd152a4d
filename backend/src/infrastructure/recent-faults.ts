import type Redis from 'ioredis';
import { FAULT_WINDOW_MS } from '@studio/contracts';

/** A success clears a mark another process made within this long. */
export const RECHECK_MS = 5_000;

/** A fault and when it was met. */
export interface RecentFault<K extends string> {
  kind: K;
  at: string;
}

/**
 * The last fault met on a part past the box (a GPU server, the content store), shared by every
 * process through Redis: the worker that meets it marks it, the API's /api/health reads it. A
 * mark expires after FAULT_WINDOW_MS and is cleared by the next success in any process, so the
 * report says what is true now. Marking and clearing never throw: a Redis outage must not change a job's outcome.
 */
export class RecentFaults<K extends string> {
  /** When this process last cleared each name (absent: it may hold a mark, its own or an earlier run's). */
  private readonly lastCleared = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    /** `${REDIS_PREFIX}:fault:<part>`; a name per item is added by the methods. */
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A success on `name`: its mark goes, whoever made it. A mark this process made goes at once; one
   * another process made (a worker that met the fault and has had no job since) within
   * RECHECK_MS, so a success costs a Redis call at most that often, not every time.
   */
  succeeded(name: string): void {
    const last = this.lastCleared.get(name);
    if (last !== undefined && this.now() - last < RECHECK_MS) return;
    this.lastCleared.set(name, this.now());
    void this.clear(name);
  }

  mark(name: string, kind: K): Promise<void> {
    this.lastCleared.delete(name);
    const value = JSON.stringify({ kind, at: new Date().toISOString() } satisfies RecentFault<K>);
    return this.redis
      .set(this.key(name), value, 'PX', FAULT_WINDOW_MS)
      .then(() => undefined)
      .catch(() => undefined);
  }

  clear(name: string): Promise<void> {
    return this.redis
      .del(this.key(name))
      .then(() => undefined)
      .catch(() => undefined);
  }

  /** The marks of these names, in order (undefined: none). Rejects when Redis does. */
  async read(names: readonly string[]): Promise<(RecentFault<K> | undefined)[]> {
    if (names.length === 0) return [];
    const values = await this.redis.mget(names.map((name) => this.key(name)));
    return values.map((value) => (value ? (JSON.parse(value) as RecentFault<K>) : undefined));
  }

  private key(name: string): string {
    return `${this.prefix}:${name}`;
  }
}
