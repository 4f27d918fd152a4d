import { applyDecorators, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ThrottlerGuard, type ThrottlerOptions, type ThrottlerRequest } from '@nestjs/throttler';
import type { Request } from 'express';
import type { AppConfig } from '../../config/app-config';
import { apiKeyOf } from './session.guard';

/**
 * The rate budgets. Each is ONE counter per caller per minute, shared by every route that names
 * it (the throttler library would otherwise count each route on its own). 'auth' counts per
 * client address (req.ip, under TRUST_PROXY); the others per signed-in user.
 */
const budgets = {
  auth: { per: 'address', limit: (c: AppConfig) => c.AUTH_RATE_LIMIT_PER_MINUTE },
  jobs: { per: 'user', limit: (c: AppConfig) => c.JOB_RATE_LIMIT_PER_MINUTE },
  folders: { per: 'user', limit: (c: AppConfig) => c.FOLDER_RATE_LIMIT_PER_MINUTE },
  downloads: { per: 'user', limit: (c: AppConfig) => c.DOWNLOAD_RATE_LIMIT_PER_MINUTE },
  checkout: { per: 'user', limit: (c: AppConfig) => c.CHECKOUT_RATE_LIMIT_PER_MINUTE },
  patreon: { per: 'user', limit: (c: AppConfig) => c.PATREON_RATE_LIMIT_PER_MINUTE },
  // The public verify page (docs/provenance.md): per client address.
  verify: { per: 'address', limit: (c: AppConfig) => c.VERIFY_RATE_PER_MINUTE },
  // The public report page (docs/takedown.md): per client address, per hour.
  reports: { per: 'address', limit: (c: AppConfig) => c.REPORT_RATE_PER_HOUR, ttlMs: 3600_000 },
  // A whole account's zip is minutes of reads: a few per hour (12 parallel ones all ran before).
  exports: { per: 'user', limit: (c: AppConfig) => c.EXPORT_RATE_LIMIT_PER_HOUR, ttlMs: 3600_000 },
} as const;

export type RateBudget = keyof typeof budgets;

const RATE_BUDGET = 'rate:budget';
const MINUTE_MS = 60_000;

/** The throttlers for ThrottlerModule: one per budget, keyed by budget and caller only. */
export function rateThrottlers(config: AppConfig): ThrottlerOptions[] {
  return (Object.keys(budgets) as RateBudget[]).map((name) => ({
    name,
    ttl: (budgets[name] as { ttlMs?: number }).ttlMs ?? MINUTE_MS,
    limit: budgets[name].limit(config),
    getTracker: (req: Record<string, unknown>) => {
      const request = req as unknown as Request;
      const address = request.ip ?? 'unknown';
      if (budgets[name].per !== 'user') return address;
      // A key has its own budgets: a script cannot use up its owner's browser session.
      const key = apiKeyOf(request);
      return key ? `key:${key.keyId}` : (request.session?.userId ?? address);
    },
    generateKey: (_context: ExecutionContext, tracker: string, budget: string) => `${budget}:${tracker}`,
  }));
}

/**
 * Counts only the budget the route names; a guard, so it runs before interceptors (multer) and
 * a refused request is answered before its body is read by them.
 */
@Injectable()
export class RateBudgetGuard extends ThrottlerGuard {
  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, throttler } = request;
    const budget = this.reflector.getAllAndOverride<RateBudget | undefined>(RATE_BUDGET, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (throttler.name !== budget) return true;
    return super.handleRequest(request);
  }
}

/** The route (or every route of the controller) spends from this budget; 429 when it is empty. */
export const RateLimit = (budget: RateBudget) =>
  applyDecorators(
    SetMetadata(RATE_BUDGET, budget),
    UseGuards(RateBudgetGuard),
    ApiTooManyRequestsResponse({ description: `Rate limited (the '${budget}' budget per minute)` }),
  );
