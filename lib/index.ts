export { DocketModule } from './docket.module.js';
export { DOCKET_MODULE_OPTIONS } from './docket.module-definition.js';
export { DocketClient } from './docket.client.js';
export { DocketWorker } from './worker.service.js';
export { SchedulerService } from './scheduler.service.js';
export * from './decorators/index.js';
export * from './errors/index.js';
export * from './execution/index.js';
export * from './interfaces/index.js';
