import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import {
  DEFAULT_FEATURE_FLAGS,
  DomainEvents,
  JobTools,
  OperationsSocketEvents,
  TOOL_LABELS,
  type EngineKind,
  type FeatureFlags,
  type JobTool,
  type MaintenanceNotice,
  type OperationsState,
  type SetFlagsRequest,
  type SetNoticeRequest,
} from '@studio/contracts';
import type { AuthUser } from '../auth';
import { LocalCpuEngine, PooledCpuEngine } from '@studio/inference';
import { DomainEventBus } from '../events';
import { EngineRegistry } from '../engines';
import { RealtimePublisher } from '../realtime';
import { OperationsSetting } from './operations.schema';

const FLAGS_ID = 'flags';
const noticeId = (tool: JobTool) => `notice:${tool}`;

/**
 * Maintenance notices per tool and feature flags: set by admins, read by every screen, pushed to
 * every connected browser the moment they change.
 */
@Injectable()
export class OperationsService {
  constructor(
    @InjectModel(OperationsSetting.name) private readonly settings: Model<OperationsSetting>,
    private readonly engines: EngineRegistry,
    private readonly realtime: RealtimePublisher,
    private readonly events: DomainEventBus,
  ) {}

  async state(): Promise<OperationsState> {
    const rows = await this.settings.find({}).lean();
    const notices: MaintenanceNotice[] = [];
    let flags: FeatureFlags = { ...DEFAULT_FEATURE_FLAGS };
    for (const row of rows) {
      if (row._id === FLAGS_ID) flags = { ...flags, ...(row.value as Partial<FeatureFlags>) };
      else if (row._id.startsWith('notice:'))
        notices.push({
          ...(row.value as Omit<MaintenanceNotice, 'updatedAt' | 'updatedBy'>),
          updatedAt: new Date(row.updatedAt).toISOString(),
          updatedBy: row.updatedBy,
        });
    }
    const capabilities = Object.fromEntries(
      JobTools.map((tool) => [tool, this.engines.engineFor(tool) !== null]),
    ) as Record<JobTool, boolean>;
    const engines = Object.fromEntries(
      JobTools.map((tool) => {
        const engine = this.engines.engineFor(tool);
        const local = engine instanceof LocalCpuEngine || engine instanceof PooledCpuEngine;
        return [tool, engine ? (local ? 'local' : 'gpu') : null];
      }),
    ) as Record<JobTool, EngineKind | null>;
    return { notices, flags, capabilities, engines };
  }

  async flags(): Promise<FeatureFlags> {
    return (await this.state()).flags;
  }

  async setNotice(admin: AuthUser, tool: JobTool, input: SetNoticeRequest): Promise<OperationsState> {
    await this.write(admin, noticeId(tool), { tool, ...input });
    return this.announce(
      admin,
      `${input.enabled ? 'Showed' : 'Hid'} the ${TOOL_LABELS[tool]} notice (${input.severity}): ${input.text}`,
    );
  }

  async setFlags(admin: AuthUser, input: SetFlagsRequest): Promise<OperationsState> {
    const flags = { ...(await this.flags()), ...input };
    await this.write(admin, FLAGS_ID, { ...flags });
    return this.announce(
      admin,
      `Set feature flags: ${Object.entries(input)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
    );
  }

  private async write(admin: AuthUser, id: string, value: Record<string, unknown>): Promise<void> {
    await this.settings.updateOne(
      { _id: id },
      { $set: { value, updatedAt: new Date(), updatedBy: admin.username } },
      { upsert: true },
    );
  }

  private async announce(admin: AuthUser, change: string): Promise<OperationsState> {
    const state = await this.state();
    this.realtime.toAll(OperationsSocketEvents.changed, state);
    await this.events.publish(DomainEvents.operationsChanged, {
      userId: admin.id,
      username: admin.username,
      change,
    });
    return state;
  }
}
