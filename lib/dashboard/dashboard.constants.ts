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
  live: true,
  keepFinished: 1_000,
} as const satisfies DocketDashboardOptions;

/** How long the history kept for a mounted dashboard lasts without renewal, ms. */
export const HISTORY_LEASE = 60_000;

/** How often a mounted dashboard renews the history it keeps, ms. */
export const HISTORY_RENEW = 20_000;

/** How many failures seen on the state channel the dashboard remembers. */
export const RECENT_FAILURES = 50;

/** Most running tasks the running view and the workers page list. */
export const RUNNING_LIMIT = 1_000;

/** Most queued and scheduled tasks one answer lists (the total counts them all). */
export const SCHEDULED_LIMIT = 500;

/** Shortest time between two messages of changes on a live stream, ms (a few a second). */
export const LIVE_MESSAGE_EVERY = 250;

/** Most events one message of changes lists; the others are counted. */
export const LIVE_EVENTS_PER_MESSAGE = 50;

/**
 * How often a live stream sends a `ping`, ms: below the idle timeouts of common proxies
 * (30–60 s), so that they keep a quiet stream open.
 */
export const LIVE_HEARTBEAT = 15_000;

/** How long a browser waits before it reconnects a live stream that ended, ms. */
export const LIVE_RECONNECT = 3_000;
