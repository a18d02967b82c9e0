import type { CanActivate, ModuleMetadata, Type } from '@nestjs/common';

/** Options of `DocketDashboardModule.forRoot()`. */
export interface DocketDashboardOptions {
  /**
   * URL path of the dashboard, after any global prefix (`app.setGlobalPrefix`).
   * @default '/docket'
   */
  path?: string;
  /**
   * Guard of the actions (cancel, retry, strike, restore, pause, resume), e.g. your admin guard.
   * Without one
   * the actions are refused (403) unless `allowActionsWithoutGuard` is given.
   */
  guard?: Type<CanActivate>;
  /**
   * Let anyone who can reach the dashboard act (cancel, retry, strike, pause) when no `guard` is
   * given: for a dashboard only reachable from a trusted network. A warning says so at boot.
   * @default false
   */
  allowActionsWithoutGuard?: boolean;
  /**
   * Guard of everything the dashboard serves, pages and reads included (task arguments may
   * hold personal data). Actions pass both guards.
   */
  viewGuard?: Type<CanActivate>;
  /**
   * Show, never act: the UI hides the actions and their endpoints answer 403.
   * @default false
   */
  readOnly?: boolean;
  /**
   * Name of the docket to show. An application has one `DocketModule` today; when given, this
   * must be its name (checked at boot).
   * @default the DocketModule's name
   */
  docket?: string;
  /**
   * Show task arguments (as a short preview). Turn off when they hold what the dashboard's
   * viewers should not see.
   * @default true
   */
  showArguments?: boolean;
  /**
   * How often the page reads its view when it has no live stream (`live` off, or the stream
   * unavailable), and while its view shows progress (running tasks), in ms. With a live
   * stream it reads every view at least every `max(refreshInterval, 20 s)` besides.
   * @default 1500
   */
  refreshInterval?: number;
  /**
   * How often the module samples depths and counts for the charts, in ms.
   * @default 2000
   */
  sampleInterval?: number;
  /**
   * How far back the charts go, in ms (samples are kept in memory).
   * @default 900000 (15 min)
   */
  history?: number;
  /**
   * Count completions and failures of every worker of the docket by listening to its state
   * events (one extra Redis connection; every state change of the docket reaches this
   * process). Off: the charts show depths only.
   * @default true
   */
  throughput?: boolean;
  /**
   * Stream changes to the page (`api/live`, server-sent events from the docket's events),
   * so that it reads a view when something in it changed instead of every
   * `refreshInterval`. While a page is open the docket's scripts publish their events (one
   * message per script call that changes executions); with no page open they do not. Off:
   * the page reads every `refreshInterval`, and `api/live` answers 404.
   * @default true
   */
  live?: boolean;
  /**
   * How many finished executions (completed, failed, cancelled) the History view can list:
   * while the dashboard is mounted, the docket's scripts add every end to a history of this
   * size (`DocketInspector.keepHistory`, renewed every 20 s; it lapses a minute after the
   * last process that mounts the dashboard stops). Each lists while Redis still holds its
   * record (`executionTtl`). 0: no history, and no cost to the engine. At most 10 000.
   * @default 1000
   */
  keepFinished?: number;
  /** Modules that the guards' dependencies come from. */
  imports?: ModuleMetadata['imports'];
}

/** The options with defaults merged in; the path without surrounding slashes. */
export interface ResolvedDashboardOptions extends Required<
  Omit<DocketDashboardOptions, 'guard' | 'viewGuard' | 'docket' | 'imports'>
> {
  guard?: Type<CanActivate>;
  viewGuard?: Type<CanActivate>;
  docket?: string;
}
