export * from './docket-metadata.accessor.js';
export * from './docket.explorer.js';
export * from './task-definition.js';
export * from './task-registry.js';
