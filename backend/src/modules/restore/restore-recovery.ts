import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectModel } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import { Model } from 'mongoose';
import { existsSync, rmSync } from 'node:fs';
import { JobTools, OPEN_JOB_STATES } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Job, type JobRecord } from '../generation/job.schema';
import { JobLifecycle } from '../generation/job-lifecycle.service';
import { toolQueueToken } from '../generation/job-queues';

/** What the owner of a job lost in a restore reads (and what the metrics count as reason 'restore'). */
export const RESTORE_FAILURE_MESSAGE =
  'The studio was restored from a backup taken while this job was in progress; your credits were refunded';

/**
 * After `npm run restore` (RESTORE_MARKER_FILE present): the jobs that were open when the backup
 * was taken are failed and refunded, once, before this process takes any job (onModuleInit runs
 * before the job runner's bootstrap). Their queue entries are a snapshot of another moment, so the
 * tool queues are emptied too. The marker goes last: a crash midway repeats the whole, and each step
 * is idempotent (failing an ended job changes nothing; the ledger refunds a reservation once).
 */
@Injectable()
export class RestoreRecovery implements OnModuleInit {
  private readonly logger = new Logger(RestoreRecovery.name);

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly lifecycle: JobLifecycle,
    private readonly modules: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const marker = this.config.RESTORE_MARKER_FILE;
    if (!marker || !existsSync(marker)) return;
    const failed = await this.failOpenJobs();
    for (const tool of JobTools) {
      const queue = this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
      await queue.obliterate({ force: true });
    }
    rmSync(marker, { force: true });
    this.logger.warn(`restored from a backup: ${failed} job(s) in progress then were failed and refunded`);
  }

  async failOpenJobs(): Promise<number> {
    const tried = new Set<string>();
    for (;;) {
      const open = await this.jobs
        .find({ state: { $in: [...OPEN_JOB_STATES] }, _id: { $nin: [...tried] } })
        .limit(200)
        .lean();
      if (open.length === 0) return tried.size;
      for (const job of open) {
        tried.add(String(job._id));
        await this.lifecycle.failed(job as JobRecord, RESTORE_FAILURE_MESSAGE);
      }
    }
  }
}
