import { Controller, Get, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Model, Types } from 'mongoose';
import { API_KEY_USAGE_DAYS, type ApiKeyUsage, type ApiKeyUsageRow } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, type AuthUser } from '../auth';
import { Job } from './job.schema';

const DAY_MS = 86_400_000;
/** Ended without charge: their coins came back. */
const REFUNDED = new Set(['failed', 'cancelled']);

/**
 * The usage page's figures: per key, tool and UTC day over the last 30 days, from the jobs each key
 * asked for (the jobs are this module's; the keys only name them).
 */
@Injectable()
export class ApiKeyUsageReport {
  constructor(@InjectModel(Job.name) private readonly jobs: Model<Job>) {}

  async of(user: AuthUser, now = Date.now()): Promise<ApiKeyUsage> {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const from = today - (API_KEY_USAGE_DAYS - 1) * DAY_MS;
    const days = Array.from({ length: API_KEY_USAGE_DAYS }, (_, i) =>
      new Date(from + i * DAY_MS).toISOString().slice(0, 10),
    );
    // The owner's jobs of the window, by the {owner, _id} index (an _id holds its creation second).
    const rows = await this.jobs
      .find(
        {
          owner: new Types.ObjectId(user.id),
          _id: { $gte: Types.ObjectId.createFromTime(Math.floor(from / 1000)) },
          'apiKey.keyId': { $exists: true },
        },
        { tool: 1, cost: 1, state: 1, apiKey: 1, createdAt: 1 },
      )
      .lean();
    const totals = new Map<string, ApiKeyUsageRow>();
    for (const job of rows) {
      const day = job.createdAt.toISOString().slice(0, 10);
      const keyId = job.apiKey!.keyId;
      const id = `${day}|${keyId}|${job.tool}`;
      const row = totals.get(id) ?? { day, keyId, tool: job.tool, jobs: 0, coins: 0 };
      row.jobs += 1;
      if (!REFUNDED.has(job.state)) row.coins += job.cost;
      totals.set(id, row);
    }
    const sorted = [...totals.values()].sort(
      (a, b) => a.day.localeCompare(b.day) || a.keyId.localeCompare(b.keyId) || a.tool.localeCompare(b.tool),
    );
    return { days, rows: sorted };
  }
}

@ApiTags('api-keys')
@Controller('account/api-keys/usage')
export class ApiKeyUsageController {
  constructor(private readonly report: ApiKeyUsageReport) {}

  @Get()
  @ApiOperation({
    summary: 'Your API keys’ use over the last 30 days: jobs and coins spent per key, tool and UTC day',
  })
  @ApiOkResponse({
    description: '{message, content: {days: string[], rows: [{day, keyId, tool, jobs, coins}]}}',
  })
  async usage(@CurrentUser() user: AuthUser) {
    return ok(await this.report.of(user));
  }
}
