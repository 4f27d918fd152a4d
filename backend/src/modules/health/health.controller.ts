import { Controller, Get, Inject } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type Redis from 'ioredis';
import type { Connection } from 'mongoose';
import type { HealthContent, ServiceState } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { REDIS } from '../../infrastructure/redis.module';
import { Public } from '../auth/auth.decorators';
import { MailService } from '../mail/mail.service';

const PROBE_TIMEOUT_MS = 2000;

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(
    @InjectConnection() private readonly db: Connection,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly mail: MailService,
  ) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Liveness with the state of the database, Redis and the mail transport' })
  @ApiOkResponse({
    description: '{message, content: {status, database, redis, mail, uptimeSeconds, version}}',
  })
  async health() {
    const [database, redis, mail] = await Promise.all([
      probe(() => this.db.db!.admin().ping()),
      probe(() => this.redis.ping()),
      this.mail.state(),
    ]);
    const content: HealthContent = {
      status: database === 'up' && redis === 'up' && mail !== 'down' ? 'ok' : 'degraded',
      database,
      redis,
      mail,
      uptimeSeconds: Math.round(process.uptime()),
      version: process.env.npm_package_version ?? '0.1.0',
    };
    return ok(content);
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
