import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { Messages } from '@studio/contracts';

/**
 * For the spec's state-changing GET (deleteGen): SameSite=Lax cookies still ride along on a
 * top-level navigation from another site, so a browser request must say it came from our own
 * pages (Sec-Fetch-Site). Clients that send no such header (scripts, tests) are not browsers.
 */
@Injectable()
export class SameOriginGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const site = context.switchToHttp().getRequest<Request>().get('sec-fetch-site');
    if (site === undefined || site === 'same-origin' || site === 'none') return true;
    throw new ForbiddenException(Messages.forbidden);
  }
}
