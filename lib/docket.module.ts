import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DocketConfigurableModule } from './docket.module-definition.js';
import { DOCKET_PROVIDERS } from './docket.providers.js';
import { BuiltinTasks } from './explorer/builtin.tasks.js';
import { DocketExplorer } from './explorer/docket.explorer.js';
import { TaskRegistry } from './explorer/task-registry.js';
import { DeadLetters } from './inspection/dead-letters.js';
import { DocketInspector } from './inspection/docket-inspector.js';
import { DocketHealthIndicator } from './observability/docket-health.indicator.js';
import { DocketClient } from './producer/docket.client.js';
import { SchedulerService } from './scheduler.service.js';
import { DocketWorker } from './worker.service.js';

/**
 * Background tasks on Redis. `DocketModule.forRoot(options)` or `forRootAsync({...})`; global
 * unless `isGlobal: false`.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    ...DOCKET_PROVIDERS,
    TaskRegistry,
    DocketExplorer,
    DocketInspector,
    DeadLetters,
    DocketClient,
    SchedulerService,
    DocketWorker,
    BuiltinTasks,
    DocketHealthIndicator,
  ],
  exports: [DocketClient, DocketWorker, DocketInspector, DeadLetters, DocketHealthIndicator],
})
export class DocketModule extends DocketConfigurableModule {}
