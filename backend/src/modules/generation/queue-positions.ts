import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectModel } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import { isValidObjectId, Model, Types } from 'mongoose';
import { JobSocketEvents, type JobTool } from '@studio/contracts';
import { RealtimePublisher } from '../realtime/realtime.publisher';
import { Job } from './job.schema';
import { toolQueueToken } from './job-queues';

/**
 * Places in line shown while a job waits. Positions of the jobs still waiting only change when one
 * leaves the waiting list (a worker takes it), so they are computed then, once per start: one read
 * of the queue's waiting list and one indexed read of the owners, and each owner gets one push
 * with their own jobs' places. Jobs further back than this are told their place as they move up.
 */
export const POSITIONS_TOLD = 200;

/**
 * At most one announcement per tool in this window: under a backlog jobs start many times a
 * second, and each announcement reads up to POSITIONS_TOLD jobs. Starts within the window are
 * told once, when it ends, from the list as it is then.
 */
export const POSITIONS_EVERY_MS = 500;

@Injectable()
export class QueuePositions {
  private readonly logger = new Logger(QueuePositions.name);
  /** Per tool: whether another start came while the window was open. */
  private readonly windows = new Map<JobTool, { again: boolean }>();

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly realtime: RealtimePublisher,
    private readonly modules: ModuleRef,
  ) {}

  /** The ids waiting in a tool's queue, next in line first (at most POSITIONS_TOLD). */
  async waiting(tool: JobTool): Promise<string[]> {
    const queue = this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
    // Bull pushes new jobs on the left of its `wait` list and workers take them from the right.
    const ids = await queue.client.lrange(queue.toKey('wait'), -POSITIONS_TOLD, -1);
    return ids.reverse();
  }

  /**
   * A job of this tool has started: tells the owners of the jobs still waiting their new places,
   * now or, when an announcement went out less than POSITIONS_EVERY_MS ago, when that window ends.
   */
  announce(tool: JobTool): void {
    const window = this.windows.get(tool);
    if (window) {
      window.again = true;
      return;
    }
    const opened = { again: false };
    this.windows.set(tool, opened);
    void this.tell(tool);
    setTimeout(() => {
      this.windows.delete(tool);
      if (opened.again) this.announce(tool);
    }, POSITIONS_EVERY_MS).unref();
  }

  /** Pushes every owner of a waiting job of this tool the places of their own waiting jobs. */
  private async tell(tool: JobTool): Promise<void> {
    try {
      const ids = (await this.waiting(tool)).filter((id) => isValidObjectId(id));
      if (ids.length === 0) return;
      const owners = await this.jobs
        .find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } }, { owner: 1 })
        .lean();
      const ownerOf = new Map(owners.map((job) => [String(job._id), String(job.owner)]));
      const byOwner = new Map<string, { jobId: string; position: number }[]>();
      ids.forEach((jobId, index) => {
        const owner = ownerOf.get(jobId);
        if (!owner) return;
        byOwner.set(owner, [...(byOwner.get(owner) ?? []), { jobId, position: index + 1 }]);
      });
      for (const [owner, positions] of byOwner) {
        this.realtime.toUser(owner, JobSocketEvents.positions, { tool, positions });
      }
    } catch (err) {
      // Places in line are a courtesy: a failed read must not touch the job that started.
      this.logger.warn(`queue positions of ${tool} not pushed: ${String(err)}`);
    }
  }
}
