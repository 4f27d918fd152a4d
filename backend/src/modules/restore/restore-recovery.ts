import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { OPEN_JOB_STATES } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Job, type JobRecord, JobLifecycle } from '../generation';

/** What the owner of a job lost in a restore reads (and what the metrics count as reason 'restore'). */
export const RESTORE_FAILURE_MESSAGE =
  'The studio was restored from a backup taken while this job was in progress; your credits were refunded';

/**
 * After `npm run restore` (RESTORE_MARKER_FILE present): the jobs that were open when the backup
 * was taken are failed and refunded, once, before this process takes any job (onModuleInit runs
 * before the job runner's bootstrap; the API and a separate worker both do it, idempotently).
 * Only jobs made before the backup are touched, so a job submitted to an API that finished first
 * is never taken for one. Their queue entries from the snapshot are then harmless: the runner
 * finds the job ended and drops it. The marker goes last: a crash midway repeats the whole, and
 * failing an ended job changes nothing (the ledger refunds a reservation once).
 */
@Injectable()
export class RestoreRecovery implements OnModuleInit {
  private readonly logger = new Logger(RestoreRecovery.name);

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly lifecycle: JobLifecycle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const marker = this.config.RESTORE_MARKER_FILE;
    if (!marker || !existsSync(marker)) return;
    const backupAt = backupTimeOf(marker);
    const failed = await this.failOpenJobs(backupAt);
    rmSync(marker, { force: true });
    this.logger.warn(
      `restored from the backup of ${backupAt.toISOString()}: ${failed} job(s) in progress then were failed and refunded`,
    );
  }

  async failOpenJobs(madeBefore: Date): Promise<number> {
    const seen = new Set<string>();
    let failed = 0;
    for (;;) {
      const open = await this.jobs
        .find({ state: { $in: [...OPEN_JOB_STATES] }, _id: { $nin: [...seen] } })
        .limit(200)
        .lean();
      if (open.length === 0) return failed;
      for (const job of open) {
        seen.add(String(job._id));
        if (new Date(job.createdAt) > madeBefore) continue;
        await this.lifecycle.failed(job as JobRecord, RESTORE_FAILURE_MESSAGE);
        failed += 1;
      }
    }
  }
}

/** When the backup was taken (the marker's createdAt); an unreadable marker: now, to fail them all. */
function backupTimeOf(marker: string): Date {
  try {
    const at = new Date((JSON.parse(readFileSync(marker, 'utf8')) as { createdAt?: string }).createdAt ?? '');
    if (!Number.isNaN(at.getTime())) return at;
  } catch {
    // an empty or hand-made marker
  }
  return new Date();
}
