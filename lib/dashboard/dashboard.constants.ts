import type { DocketDashboardOptions } from './dashboard-options.interface.js';

/** Injection token of the dashboard's resolved options. */
export const DOCKET_DASHBOARD_OPTIONS = Symbol('DOCKET_DASHBOARD_OPTIONS');

export const DASHBOARD_DEFAULTS = {
  path: '/docket',
  readOnly: false,
  allowActionsWithoutGuard: false,
  showArguments: true,
  refreshInterval: 1_500,
  sampleInterval: 2_000,
  history: 900_000,
  throughput: true,
} as const satisfies DocketDashboardOptions;

/** How many failures seen on the state channel the dashboard remembers. */
export const RECENT_FAILURES = 50;

/** Most queued and scheduled tasks one answer lists (the total counts them all). */
export const SCHEDULED_LIMIT = 500;
