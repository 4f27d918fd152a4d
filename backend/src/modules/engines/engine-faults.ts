import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { EngineFault, JobTool } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RecentFaults, type RecentFault } from '../../infrastructure/recent-faults';
import { REDIS } from '../../infrastructure/redis.module';

/**
 * The last fault jobs met on each tool's remote engine (down, too slow, its own error, an
 * unreadable image), marked by the worker that met it and cleared by the tool's next success. A
 * GPU server can answer the health probe and still fail every job: /api/health shows both.
 */
@Injectable()
export class EngineFaults {
  private readonly faults: RecentFaults<EngineFault>;

  constructor(@Inject(REDIS) redis: Redis, @Inject(APP_CONFIG) config: AppConfig) {
    this.faults = new RecentFaults(redis, `${config.REDIS_PREFIX}:fault:engine`);
  }

  met(tool: JobTool, fault: EngineFault): void {
    void this.faults.mark(tool, fault);
  }

  succeeded(tool: JobTool): void {
    this.faults.succeeded(tool);
  }

  /** Per tool, its mark or undefined; rejects when Redis does (the caller bounds it). */
  read(tools: readonly JobTool[]): Promise<(RecentFault<EngineFault> | undefined)[]> {
    return this.faults.read(tools);
  }
}
