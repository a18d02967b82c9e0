import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DocketClient } from './producer/docket.client.js';
import { DocketConfigurableModule } from './docket.module-definition.js';
import { resolvedOptionsProvider } from './docket.providers.js';
import { DocketRuntime } from './docket.runtime.js';
import { DocketExplorer } from './explorer/docket.explorer.js';
import { DocketMetadataAccessor } from './explorer/docket-metadata.accessor.js';
import { TaskRegistry } from './explorer/task-registry.js';
import { DocketHealthIndicator } from './observability/docket-health.indicator.js';
import { SchedulerService } from './scheduler.service.js';
import { BuiltinTasks } from './explorer/builtin.tasks.js';
import { DocketWorker } from './worker.service.js';

/**
 * Background tasks on Redis. `DocketModule.forRoot(options)` or `forRootAsync({...})`; global
 * unless `isGlobal: false`.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    resolvedOptionsProvider,
    TaskRegistry,
    DocketMetadataAccessor,
    DocketExplorer,
    DocketRuntime,
    DocketClient,
    SchedulerService,
    DocketWorker,
    BuiltinTasks,
    DocketHealthIndicator,
  ],
  exports: [DocketClient, DocketWorker, DocketHealthIndicator],
})
export class DocketModule extends DocketConfigurableModule {}
