import {
  Controller,
  Get,
  Headers,
  Inject,
  NotFoundException,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Public } from '../auth';
import { hasMetricsToken } from './metrics-access';
import { StudioMetrics } from './studio-metrics';

/** Path of the Prometheus endpoint, outside the API prefix (create-app.ts leaves it out). */
export const METRICS_PATH = 'metrics';

@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: StudioMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(METRICS_PATH)
  // No session: Prometheus sends the METRICS_TOKEN bearer token instead, checked here.
  @Public()
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Prometheus metrics (text exposition format), for operators',
    description:
      'Needs `Authorization: Bearer <METRICS_TOKEN>`; answers 401 without it and 404 when no token is configured.',
  })
  @ApiOkResponse({ description: 'text/plain; version=0.0.4' })
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response) {
    const token = this.config.METRICS_TOKEN;
    if (!token) throw new NotFoundException();
    if (!hasMetricsToken(authorization, token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new UnauthorizedException('A valid metrics token is required');
    }
    const body = await this.metrics.registry.metrics();
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(body);
  }
}
