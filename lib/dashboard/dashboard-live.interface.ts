import type { DashboardCounts, DashboardSample, PausedView } from './dashboard-views.interface.js';

/**
 * What `api/live` streams (server-sent events), one interface per event name. The stream
 * tells the page that something changed and where; the page reads the JSON API for the rest.
 * (This file imports only the view types: the page's browser code is type-checked against it.)
 */

/** The views of the page that an event may change (`task`: the page of one execution). */
export type LiveView =
  'overview' | 'running' | 'scheduled' | 'failures' | 'history' | 'workers' | 'task';

/** The kinds of the docket's events (`DocketEventType`). */
export type LiveEventType =
  'scheduled' | 'started' | 'completed' | 'failed' | 'retrying' | 'cancelled' | 'dead';

/**
 * Where an event leaves its execution: `waiting` is scheduled or queued (the list's default
 * filter; the event does not tell which), the others are the execution's state.
 */
export type LiveState = 'waiting' | 'running' | 'completed' | 'failed' | 'cancelled';

/** One event of the docket, as the stream carries it. */
export interface LiveEvent {
  type: LiveEventType;
  key: string;
  task: string;
  state: LiveState;
}

/** `hello`: the first event of a stream. */
export interface LiveHello {
  docket: string;
  /** How often the stream sends a `ping` at least, ms. */
  heartbeat: number;
}

/**
 * `changes`: the events of a short while (a few messages a second at most), the views they
 * change, and how many more events there were than the message lists.
 */
export interface LiveChanges {
  views: LiveView[];
  events: LiveEvent[];
  more: number;
}

/** `sample`: the sample the module just took for the charts, and the counts it read. */
export interface LiveSample {
  sample: DashboardSample;
  counts: DashboardCounts;
  /** What is paused (a pause has no event: the pages learn of it here). */
  paused: PausedView;
}

/**
 * `unavailable`: a sample could not be read (Redis is away, so changes may not come); sent
 * once, until a `sample` comes again.
 */
export interface LiveUnavailable {
  reason: string;
}
