import { Controller, Get, Inject } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type Redis from 'ioredis';
import type { Connection } from 'mongoose';
import { JobTools, type HealthContent, type ServiceState } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { within } from '../../common/within';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { Public } from '../auth';
import { EngineRegistry, toolReadiness } from '../engines';
import { MailService } from '../mail';

const PROBE_TIMEOUT_MS = 2000;

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(
    @InjectConnection() private readonly db: Connection,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly mail: MailService,
    private readonly engines: EngineRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('health')
  @Public()
  @ApiOperation({
    summary:
      "Liveness with the state of the database, Redis, the mail transport and each tool's engine " +
      '(reachable, authorised, models present, jobs queued there)',
  })
  @ApiOkResponse({
    description: '{message, content: {status, database, redis, mail, engines, uptimeSeconds, version}}',
  })
  async health() {
    const [database, redis, mail, engines] = await Promise.all([
      probe(() => this.db.db!.admin().ping()),
      probe(() => this.redis.ping()),
      this.mail.state(),
      this.engineStates(),
    ]);
    const enginesReady = engines.every((e) => e.readiness === 'ready' || e.readiness === 'not_configured');
    const content: HealthContent = {
      status: database === 'up' && redis === 'up' && mail !== 'down' && enginesReady ? 'ok' : 'degraded',
      database,
      redis,
      mail,
      engines,
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

async function probe(check: () => Promise<unknown>): Promise<ServiceState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
