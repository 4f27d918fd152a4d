import { Controller, Get, Inject, Res } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type Redis from 'ioredis';
import type { Connection } from 'mongoose';
import { JobTools, type ApiResponse, type HealthContent } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { within } from '../../common/within';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { Public } from '../auth';
import { EngineFaults, EngineRegistry, toolReadiness } from '../engines';
import { MailService } from '../mail';
import { StorageHealth } from '../storage';
import { checkDependencies, READINESS_RETRY_AFTER_SECONDS, type Readiness } from './readiness';

const PROBE_TIMEOUT_MS = 2000;

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(
    @InjectConnection() private readonly db: Connection,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly mail: MailService,
    private readonly engines: EngineRegistry,
    private readonly engineFaults: EngineFaults,
    private readonly storage: StorageHealth,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The process answers: nothing else is checked or waited for (the liveness probe). */
  @Get('health/live')
  @Public()
  @ApiOperation({
    summary: 'Liveness: the process answers (no part is checked, nothing is waited for)',
  })
  @ApiOkResponse({ description: "{message, content: {status: 'alive', uptimeSeconds}}" })
  live() {
    return ok({ status: 'alive' as const, uptimeSeconds: Math.round(process.uptime()) });
  }

  /**
   * Whether this instance can serve requests (the readiness probe, a load balancer's check): the
   * database and Redis each answer within READINESS_CHECK_TIMEOUT_MS. 503 with Retry-After
   * otherwise. Mail and engines are left out: they fail single features, which /api/health reports.
   */
  @Get('health/ready')
  @Public()
  @ApiOperation({
    summary:
      'Readiness: the database and Redis each answer within 1 s; 503 with Retry-After while one does not',
  })
  @ApiOkResponse({ description: "{message: 'success', content: {status: 'ready', database, redis}}" })
  @ApiServiceUnavailableResponse({
    description:
      "{message: 'error', content: {status: 'not_ready', database, redis}}: the part down says 'down'",
    headers: { 'Retry-After': { description: 'seconds', schema: { type: 'integer' } } },
  })
  async ready(@Res({ passthrough: true }) res: Response): Promise<ApiResponse<Readiness>> {
    const parts = await checkDependencies(this.db, this.redis);
    const ready = parts.database === 'up' && parts.redis === 'up';
    if (!ready) res.status(503).setHeader('Retry-After', String(READINESS_RETRY_AFTER_SECONDS));
    const content: Readiness = { status: ready ? 'ready' : 'not_ready', ...parts };
    return ready ? ok(content) : { message: 'error', content };
  }

  @Get('health')
  @Public()
  @ApiOperation({
    summary:
      "The state of the database, Redis, the mail transport and each tool's engine " +
      '(reachable, authorised, models present, jobs queued there); 200 whatever they say: probes ' +
      'use health/live and health/ready',
  })
  @ApiOkResponse({
    description:
      '{message, content: {status, database, redis, mail, engines, storage, uptimeSeconds, version}}',
  })
  async health() {
    // the database and Redis as the readiness probe sees them (one check, one bound)
    // Faults met by jobs (GPU servers, the store) are marks in Redis: unread while it does not answer.
    const [{ database, redis }, mail, engines, faults, storage] = await Promise.all([
      checkDependencies(this.db, this.redis),
      this.mail.state(),
      this.engineStates(),
      within(this.engineFaults.read(JobTools), PROBE_TIMEOUT_MS),
      within(this.storage.state(), PROBE_TIMEOUT_MS),
    ]);
    for (const [i, engine] of engines.entries()) {
      const fault = faults?.[i];
      if (fault) engine.fault = { kind: fault.kind, at: fault.at };
    }
    const enginesReady = engines.every(
      (e) => (e.readiness === 'ready' || e.readiness === 'not_configured') && !e.fault,
    );
    const storageState = storage ?? 'up';
    const content: HealthContent = {
      status:
        database === 'up' && redis === 'up' && mail !== 'down' && enginesReady && storageState === 'up'
          ? 'ok'
          : 'degraded',
      database,
      redis,
      mail,
      engines,
      storage: storageState,
      uptimeSeconds: Math.round(process.uptime()),
      version: process.env.npm_package_version ?? '0.1.0',
    };
    return ok(content);
  }

  /**
   * Per tool: kind and readiness, from a probe at most ENGINE_PROBE_CACHE_MS old (this route is
   * public: it must not make the studio hammer a GPU server). No server details (addresses,
   * model names) here: the admin engines page has them. A probe not back within
   * PROBE_TIMEOUT_MS counts as unreachable here (it goes on and is cached for the next call): a
   * slow GPU server must not make this liveness check time out.
   */
  private engineStates(): Promise<HealthContent['engines']> {
    const maxAge = this.config.ENGINE_PROBE_CACHE_MS;
    return Promise.all(
      JobTools.map(async (tool) => {
        const probing = this.engines.statusOf(tool, maxAge);
        const answered = await within(probing, PROBE_TIMEOUT_MS);
        if (!answered) return { tool, kind: this.engines.kindFor(tool), readiness: 'unreachable' as const };
        const { kind, available, status } = answered;
        if (!available) return { tool, kind, readiness: 'not_configured' as const };
        if (!status) return { tool, kind, readiness: 'ready' as const };
        const { readiness } = toolReadiness(tool, status);
        const queued = status.queue && status.queue.running + status.queue.pending;
        return {
          tool,
          kind,
          readiness: readiness ?? (status.reachable ? 'ready' : 'unreachable'),
          ...(queued !== undefined && { remoteQueued: queued }),
        };
      }),
    );
  }
}
