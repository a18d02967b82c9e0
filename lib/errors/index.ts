export * from './docket-configuration.error.js';
export * from './execution-cancelled.error.js';
export * from './payload-too-large.error.js';
export * from './redis-full.error.js';
export * from './redis-unavailable.error.js';
export * from './timeout.error.js';
export * from './unknown-task.error.js';
export * from './worker-state.error.js';
