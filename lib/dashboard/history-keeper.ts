import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DashboardDocket } from './dashboard-docket.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import { DOCKET_DASHBOARD_OPTIONS, HISTORY_LEASE, HISTORY_RENEW } from './dashboard.constants.js';

/**
 * While the dashboard is mounted, the docket keeps a history of its finished executions for
 * the History view (`keepFinished` of them): the lease is taken at bootstrap and renewed every
 * HISTORY_RENEW ms; it lapses HISTORY_LEASE ms after the last process that mounts the
 * dashboard stops. A renewal that fails (Redis away) is tried again at the next one.
 */
@Injectable()
export class DashboardHistoryKeeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DocketDashboard');
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  constructor(
    private readonly docket: DashboardDocket,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  // at bootstrap: the dashboard's docket is found in onModuleInit
  onApplicationBootstrap(): void {
    if (this.options.keepFinished === 0) return;
    void this.renew();
    this.timer = setInterval(() => void this.renew(), HISTORY_RENEW);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(): Promise<void> {
    try {
      await this.docket.inspector.keepHistory(this.options.keepFinished, HISTORY_LEASE);
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(`cannot keep the history of finished tasks: ${(error as Error).message}`);
      }
      this.failing = true;
    }
  }
}
