export * from './docket-dashboard.module.js';
export type * from './dashboard-options.interface.js';
export type * from './dashboard-views.interface.js';
