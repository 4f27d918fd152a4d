import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectConnection } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import type Redis from 'ioredis';
import type { Connection } from 'mongoose';
import { JobTools } from '@studio/contracts';
import { PooledCpuEngine } from '@studio/inference';
import { within } from '../../common/within';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { EngineFaults, EngineRegistry, toolQueueToken } from '../engines';
import { RealtimeGateway } from '../realtime';
import { StorageHealth } from '../storage';
import { StudioMetrics, dbCommandLabel, redisCommandLabel } from './studio-metrics';

const PROBE_TIMEOUT_MS = 2000;
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'paused'] as const;

/**
 * The gauges read at scrape time (queue depth, engine pool, remote engines, sockets) and the
 * timing of database and Redis commands: MongoDB's command monitoring events (the connection is
 * made with monitorCommands), and the shared ioredis connection's commands.
 */
@Injectable()
export class MetricsCollectors implements OnModuleInit {
  constructor(
    private readonly metrics: StudioMetrics,
    private readonly engines: EngineRegistry,
    private readonly engineFaults: EngineFaults,
    private readonly storage: StorageHealth,
    private readonly modules: ModuleRef,
    @InjectConnection() private readonly db: Connection,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.timeDatabase();
    this.timeRedis();
    const m = this.metrics;

    m.gauge('studio_queue_jobs', 'Jobs in each tool queue by Bull state', ['tool', 'state'], async (g) => {
      await Promise.all(
        JobTools.map(async (tool) => {
          const queue = this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
          const counts = await within(queue.getJobCounts(), PROBE_TIMEOUT_MS);
          if (!counts) return;
          for (const state of QUEUE_STATES) g.set({ tool, state }, (counts as never)[state] ?? 0);
        }),
      );
    });

    m.gauge(
      'studio_queue_oldest_waiting_seconds',
      'Age of the oldest job still waiting for a worker, by tool (0 when none waits)',
      ['tool'],
      async (g) => {
        await Promise.all(
          JobTools.map(async (tool) => {
            const queue = this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
            // Bull serves lower priorities first: the oldest may be anywhere in the list.
            const waiting = await within(queue.getWaiting(0, 200), PROBE_TIMEOUT_MS);
            if (!waiting) return;
            const oldest = Math.min(...waiting.filter(Boolean).map((job) => job.timestamp));
            g.set({ tool }, Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) / 1000 : 0);
          }),
        );
      },
    );

    const pool = (): PooledCpuEngine | undefined => {
      const tool = JobTools.find((t) => this.engines.kindFor(t) === 'local');
      const engine = tool && this.engines.engineFor(tool);
      return engine instanceof PooledCpuEngine ? engine : undefined;
    };
    m.gauge('studio_engine_pool_threads', 'Threads of the local engine pool', [], (g) => {
      g.set(pool()?.stats().threads ?? 0);
    });
    m.gauge('studio_engine_pool_size', 'Configured threads of the local engine pool', [], (g) => {
      g.set(this.config.ENGINE_POOL_SIZE);
    });
    m.gauge('studio_engine_pool_busy', 'Local engine pool tasks running on a thread', [], (g) => {
      const stats = pool()?.stats();
      g.set(stats ? Math.max(0, stats.tasks - stats.queued) : 0);
    });
    m.gauge('studio_engine_pool_queued', 'Local engine pool tasks waiting for a thread', [], (g) => {
      g.set(pool()?.stats().queued ?? 0);
    });

    m.gauge(
      'studio_engine_up',
      "Whether each tool's engine answers (remote engines probed, at most ENGINE_PROBE_CACHE_MS old; local: 1)",
      ['tool', 'engine'],
      async (g) => {
        await Promise.all(
          JobTools.map(async (tool) => {
            const answer = await within(
              this.engines.statusOf(tool, this.config.ENGINE_PROBE_CACHE_MS),
              PROBE_TIMEOUT_MS,
            );
            const engine = this.engines.kindFor(tool);
            if (!answer) return g.set({ tool, engine }, 0);
            if (!answer.available) return; // not configured: no series
            g.set({ tool, engine }, answer.status ? (answer.status.reachable ? 1 : 0) : 1);
          }),
        );
      },
    );

    // Faults past the box, as /api/health shows them (marks in Redis, cleared by the next success).
    m.gauge(
      'studio_engine_fault',
      "1 while a tool's remote engine has failed a job lately (down, timeout, server_error, bad_output) and none has succeeded since",
      ['tool', 'fault'],
      async (g) => {
        const faults = await within(this.engineFaults.read(JobTools), PROBE_TIMEOUT_MS);
        for (const [i, fault] of (faults ?? []).entries()) {
          if (fault) g.set({ tool: JobTools[i], fault: fault.kind }, 1);
        }
      },
    );
    m.gauge(
      'studio_storage_fault',
      '1 while content storage has failed lately (full: the disk; unavailable: S3 5xx or stalling) and no write has succeeded since',
      ['fault'],
      async (g) => {
        const state = await within(this.storage.state(), PROBE_TIMEOUT_MS);
        if (state && state !== 'up') g.set({ fault: state }, 1);
      },
    );

    // Notice and removal (docs/takedown.md): the alert fires at 36 h, 12 h before the law's 48.
    m.gauge(
      'studio_takedown_oldest_open_report_seconds',
      'Age of the oldest content report not yet decided (0 when none is open)',
      [],
      async (g) => {
        const oldest = await within(
          this.db
            .collection<{ receivedAt: Date }>('takedown_reports')
            .find({ status: 'open' }, { projection: { receivedAt: 1 } })
            .sort({ receivedAt: 1 })
            .limit(1)
            .next(),
          PROBE_TIMEOUT_MS,
        );
        if (oldest === undefined) return; // no answer in time: no sample rather than a wrong one
        g.set(oldest ? Math.max(0, Date.now() - oldest.receivedAt.getTime()) / 1000 : 0);
      },
    );

    m.gauge('studio_sockets_connected', 'Sockets connected to this instance', [], (g) => {
      g.set(this.socketCount());
    });
  }

  private socketCount(): number {
    let gateway: RealtimeGateway | undefined;
    try {
      gateway = this.modules.get(RealtimeGateway, { strict: false });
    } catch {
      return 0; // the worker has no socket server
    }
    // The gateway keeps its server to itself; read here rather than widen its interface.
    return gateway?.['server']?.of('/').sockets.size ?? 0;
  }

  private timeDatabase(): void {
    const client = this.db.getClient();
    const done = (outcome: 'ok' | 'error') => (event: { commandName: string; duration: number }) =>
      this.metrics.dbDuration.observe(
        { command: dbCommandLabel(event.commandName), outcome },
        event.duration / 1000,
      );
    client.on('commandSucceeded', done('ok'));
    client.on('commandFailed', done('error'));
  }

  private timeRedis(): void {
    const redis = this.redis as Redis & { sendCommand: Redis['sendCommand'] };
    const send = redis.sendCommand.bind(redis);
    const histogram = this.metrics.redisDuration;
    // ioredis has no command events: each command is timed from send to answer.
    redis.sendCommand = ((command: Parameters<Redis['sendCommand']>[0], stream?: never) => {
      const stop = histogram.startTimer({ command: redisCommandLabel(command.name) });
      command.promise.then(
        () => stop({ outcome: 'ok' }),
        () => stop({ outcome: 'error' }),
      );
      return send(command, stream);
    }) as Redis['sendCommand'];
  }
}
