import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { StudioMetrics } from './studio-metrics';

/**
 * Times every request by its route template (Express's matched route, `/api/jobs/:id`), never the
 * raw path: requests no route matched (the frontend's pages, unknown paths) count as 'unmatched'.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: StudioMetrics) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const stop = this.metrics.httpDuration.startTimer();
    res.once('finish', () => {
      const route = req.route as { path?: unknown } | undefined;
      const template = typeof route?.path === 'string' ? `${req.baseUrl}${route.path}` : 'unmatched';
      stop({ method: req.method, route: template, status: String(res.statusCode) });
    });
    next();
  }
}
