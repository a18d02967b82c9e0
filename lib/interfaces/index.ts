export * from './docket-task-options.interface.js';
export * from './execution.interface.js';
export * from './snapshot.interface.js';
export * from './strike-condition.interface.js';
export * from './task-context.interface.js';
export * from './task-batch.interface.js';
export * from './docket-event.interface.js';
export * from './task-list.interface.js';
