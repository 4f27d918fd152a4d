import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type Redis from 'ioredis';
import type { Connection } from 'mongoose';
import { JobTools } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { EngineRegistry, runsQueue } from '../engines';
import { checkDependencies, READINESS_RETRY_AFTER_SECONDS, type Readiness } from './readiness';

/** The worker's probe paths, on HEALTH_WORKER_PORT. */
export const WORKER_LIVE_PATH = '/health/live';
export const WORKER_READY_PATH = '/health/ready';

/**
 * A worker process has no HTTP app: for Kubernetes' and compose's probes it answers on
 * HEALTH_WORKER_PORT (0, the default: nothing listens), no token, two GET routes:
 * - /health/live: the process answers;
 * - /health/ready: the database and Redis answer (each within 1 s, as the API's readiness) and the
 *   local engine pool is usable (its threads are up and take tasks where this worker starts them at
 *   boot, their models loading behind; not closed). 503 with Retry-After otherwise.
 * An HTTP listener rather than an exec probe: the pool's state is in this process, and an exec
 * probe would start a second Node process every period.
 */
@Injectable()
export class WorkerHealthServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerHealthServer.name);
  private server?: Server;

  constructor(
    @InjectConnection() private readonly db: Connection,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly engines: EngineRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.HEALTH_WORKER_PORT;
    if (!port) return;
    this.server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method === 'GET' && path === WORKER_LIVE_PATH) {
        send(res, 200, { status: 'alive', uptimeSeconds: Math.round(process.uptime()) });
      } else if (req.method === 'GET' && path === WORKER_READY_PATH) {
        this.readiness().then(
          (content) => send(res, content.status === 'ready' ? 200 : 503, content),
          () => send(res, 503, { status: 'not_ready' }),
        );
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, this.config.HOST, () => resolve());
    });
    this.logger.log(`worker probes on http://${this.config.HOST}:${port}${WORKER_READY_PATH}`);
  }

  /** The port it listens on (tests pass a free one). */
  address(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  async readiness(): Promise<Readiness> {
    const parts = await checkDependencies(this.db, this.redis);
    const enginePool = this.engines.localPool(JobTools.filter((tool) => runsQueue(this.config, tool)));
    const ready = parts.database === 'up' && parts.redis === 'up' && enginePool.usable;
    return { status: ready ? 'ready' : 'not_ready', ...parts, enginePool };
  }

  async onApplicationShutdown(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function send(res: ServerResponse, status: number, content: object): void {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
  if (status === 503) headers['Retry-After'] = String(READINESS_RETRY_AFTER_SECONDS);
  res
    .writeHead(status, headers)
    .end(JSON.stringify({ message: status === 200 ? 'success' : 'error', content }));
}
