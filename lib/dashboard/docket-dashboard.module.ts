import { type DynamicModule, Module } from '@nestjs/common';
import { DashboardActionGuard } from './dashboard-action.guard.js';
import { DashboardClosingGuard } from './dashboard-closing.guard.js';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import { createDashboardController } from './dashboard.controller.js';
import { DashboardDocket } from './dashboard-docket.js';
import type { DocketDashboardOptions } from './dashboard-options.interface.js';
import { resolveDashboardOptions } from './dashboard-options.js';
import { DashboardSampler } from './dashboard-sampler.js';
import { DashboardService } from './dashboard.service.js';
import { DashboardTaskService } from './dashboard-task.service.js';
import { DashboardListsService } from './dashboard-lists.service.js';
import { DashboardBulkService } from './dashboard-bulk.service.js';
import { DashboardLive } from './dashboard-live.service.js';
import { DashboardHistoryKeeper } from './history-keeper.js';

/**
 * A web dashboard of the application's docket, mounted under `path` in its HTTP server
 * (Express or Fastify): depths, throughput, running tasks with progress, scheduled tasks,
 * failures and dead letters, strikes and workers, what is paused and why a task waits, kept up
 * to date by a stream of the docket's events; actions behind `guard`. Needs
 * `DocketModule` (global, the default) in the application.
 */
@Module({})
export class DocketDashboardModule {
  static forRoot(options: DocketDashboardOptions = {}): DynamicModule {
    const resolved = resolveDashboardOptions(options);
    return {
      module: DocketDashboardModule,
      imports: options.imports ?? [],
      controllers: [createDashboardController(resolved)],
      providers: [
        { provide: DOCKET_DASHBOARD_OPTIONS, useValue: resolved },
        DashboardDocket,
        DashboardSampler,
        DashboardService,
        DashboardTaskService,
        DashboardListsService,
        DashboardBulkService,
        DashboardLive,
        DashboardHistoryKeeper,
        DashboardActionGuard,
        DashboardClosingGuard,
      ],
    };
  }
}
