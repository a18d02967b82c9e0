import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';

/**
 * Runs before the user's guard on every action: refuses them all when the dashboard is
 * read-only or has no guard (unless `allowActionsWithoutGuard`), and refuses a body that is
 * not JSON, which a cross-site form cannot send — so a cookie-based guard is not open to
 * cross-site request forgery.
 */
@Injectable()
export class DashboardActionGuard implements CanActivate {
  constructor(
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.options.readOnly) throw new ForbiddenException('the dashboard is read-only');
    if (!actionsAllowed(this.options)) {
      throw new ForbiddenException(
        'the dashboard has no guard for its actions: give DocketDashboardModule.forRoot({ guard }) ' +
          '(or allowActionsWithoutGuard: true)',
      );
    }
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    const type = String(request.headers['content-type'] ?? '');
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new UnsupportedMediaTypeException('actions take a JSON body (application/json)');
    }
    return true;
  }
}

/** Whether the dashboard offers actions: not read-only, and guarded (or allowed unguarded). */
export function actionsAllowed(options: ResolvedDashboardOptions): boolean {
  return !options.readOnly && (options.guard !== undefined || options.allowActionsWithoutGuard);
}
