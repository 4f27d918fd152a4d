import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { JobTools, type JobTool, type ToolEngineStatus } from '@studio/contracts';
import type { EngineStatus } from '@studio/inference';
import { CAPABILITY_OF, EngineRegistry } from './engine-registry';
import { toolQueueToken } from './job-queues';

/** The operations page's engine board: per tool, its engine, whether it answers, and its queue. */
@Injectable()
export class EnginesStatusService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly modules: ModuleRef,
  ) {}

  list(): Promise<ToolEngineStatus[]> {
    return Promise.all(JobTools.map((tool) => this.one(tool)));
  }

  private async one(tool: JobTool): Promise<ToolEngineStatus> {
    const [engine, queue] = await Promise.all([this.engines.statusOf(tool), this.queueCounts(tool)]);
    const { status } = engine;
    return {
      tool,
      kind: engine.kind,
      available: engine.available,
      ...(status && {
        reachable: status.reachable,
        ...toolReadiness(tool, status),
        detail: status.detail,
        gpu: status.gpu,
        remoteQueue: status.queue,
      }),
      queue,
    };
  }

  private async queueCounts(tool: JobTool): Promise<ToolEngineStatus['queue']> {
    const queue = this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
    const counts = await queue.getJobCounts();
    return { waiting: counts.waiting, active: counts.active, delayed: counts.delayed, failed: counts.failed };
  }
}

/**
 * The engine's readiness for one tool: what its server lacks for other tools does not stop this
 * one (the engine is shared, its probe covers every tool it offers).
 */
export function toolReadiness(
  tool: JobTool,
  status: EngineStatus,
): Pick<ToolEngineStatus, 'readiness' | 'missing'> {
  const missing = (status.missing ?? [])
    .filter((m) => m.capability === CAPABILITY_OF[tool])
    .map((m) => m.what);
  if (status.readiness === undefined) return {};
  if (status.readiness !== 'models_missing') return { readiness: status.readiness };
  return missing.length > 0 ? { readiness: 'models_missing', missing } : { readiness: 'ready' };
}
