import { BadRequestException, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types, type FilterQuery } from 'mongoose';
import { JOB_HISTORY_PAGE_SIZE, type JobHistoryPage, type JobHistoryQuery } from '@studio/contracts';
import type { AuthUser } from '../auth';
import { Job, type JobRecord } from './job.schema';
import { toJobView } from './job-view';

const DAY_SECONDS = 24 * 3600;

/**
 * All of one user's jobs, newest first (the jobs page). A job's _id is made when it is recorded, so
 * it carries its creation second: every page is the index {owner, _id} read backwards from a
 * cursor — the owner's equality and an _id range (cursor, days) — and stops at the page's end.
 * Tool and state filter what that read returns; no total is counted.
 */
@Injectable()
export class JobHistory {
  constructor(@InjectModel(Job.name) private readonly jobs: Model<Job>) {}

  async page(user: AuthUser, query: JobHistoryQuery): Promise<JobHistoryPage> {
    const pageSize = query.pageSize ?? JOB_HISTORY_PAGE_SIZE.default;
    const ids: { $gte?: Types.ObjectId; $lt?: Types.ObjectId } = {};
    const from = query.from ? dayStart(query.from) : undefined;
    const toEnd = query.to ? dayStart(query.to) + DAY_SECONDS : undefined;
    if (from !== undefined && toEnd !== undefined && from >= toEnd) {
      throw new BadRequestException('from must not be after to');
    }
    if (from !== undefined) ids.$gte = Types.ObjectId.createFromTime(from);
    if (toEnd !== undefined) ids.$lt = Types.ObjectId.createFromTime(toEnd);
    if (query.before) {
      const before = new Types.ObjectId(query.before);
      if (!ids.$lt || before.toHexString() < ids.$lt.toHexString()) ids.$lt = before;
    }
    const filter: FilterQuery<Job> = {
      owner: new Types.ObjectId(user.id),
      // Some _id bound on every read lets the embedded database walk the _id order and stop early.
      _id: ids.$gte || ids.$lt ? ids : { $type: 'objectId' },
    };
    if (query.tool) filter.tool = query.tool;
    if (query.state) filter.state = query.state;
    const rows = await this.jobs
      .find(filter)
      .sort({ _id: -1 })
      .limit(pageSize + 1) // one more tells whether an older page exists
      .lean();
    const items = rows.slice(0, pageSize).map((row) => toJobView(row as JobRecord));
    return { items, pageSize, next: rows.length > pageSize ? items[items.length - 1]._id : null };
  }
}

/** The first second of a UTC day written YYYY-MM-DD (checked by the DTO), within ObjectId time. */
function dayStart(day: string): number {
  const seconds = Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000);
  return Math.min(Math.max(seconds, 0), 0xffffffff - DAY_SECONDS);
}
