import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createServer, type Server } from 'node:http';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { hasMetricsToken } from './metrics-access';
import { StudioMetrics } from './studio-metrics';

/**
 * The worker process has no HTTP app: its own /metrics listens on METRICS_WORKER_PORT, behind the
 * same token. Nothing listens when the port is 0 or no token is configured.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerMetricsServer.name);
  private server?: Server;

  constructor(
    private readonly metrics: StudioMetrics,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { METRICS_WORKER_PORT: port, METRICS_TOKEN: token } = this.config;
    if (this.adapterHost.httpAdapter || !port || !token) return; // the API serves its own
    this.server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      if (!hasMetricsToken(req.headers.authorization, token)) {
        res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="metrics"' }).end();
        return;
      }
      this.metrics.registry.metrics().then(
        (body) => res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, this.config.HOST, () => resolve());
    });
    this.logger.log(`worker metrics on http://${this.config.HOST}:${port}/metrics`);
  }

  /** The port it listens on (tests ask for port 0... see onApplicationBootstrap). */
  address(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
