// The public API of the engine (what `index.ts` exports besides the dashboard and the testing
// kit). The CLI, the dashboard and the testing kit import the engine from here only.
export { DocketModule } from './docket.module.js';
export { DOCKET_MODULE_OPTIONS } from './docket.module-definition.js';
export { DocketClient } from './producer/docket.client.js';
export type { Agenda, AgendaAddOptions, ScatterOptions } from './producer/agenda.js';
export { DocketWorker, type WorkerStatus } from './worker.service.js';
export { SchedulerService } from './scheduler.service.js';
export {
  DocketInspector,
  type DocketConfiguration,
  type StrikeInEffect,
} from './inspection/docket-inspector.js';
export type { LiveWorker } from './inspection/live-worker.interface.js';
export {
  DeadLetters,
  type DeadLetterEntry,
  type DeadLetterRetry,
  type DeadLetterScan,
  type DeadLetterSearch,
} from './inspection/dead-letters.js';
export { docketOptionsFromEnvironment } from './config/environment.js';
export { taskNameOf } from './explorer/task-name.js';
export * from './config/index.js';
export * from './explorer/index.js';
export * from './errors/index.js';
export * from './execution/index.js';
export * from './observability/index.js';
export * from './interfaces/index.js';
export { DOCKET_OPTION_DEFAULTS } from './docket.tokens.js';
