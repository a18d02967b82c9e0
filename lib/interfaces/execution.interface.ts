/** What `add`/`replace` did with the request. */
export type Disposition = 'scheduled' | 'already_scheduled' | 'struck';

/**
 * What `cancel(key)` did: the execution ends cancelled, it had already ended, or Redis holds
 * nothing for the key.
 */
export type CancelOutcome = 'cancelled' | 'not_found' | 'finished';

/** Where an execution is in its life. */
export type ExecutionState =
  'scheduled' | 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * Progress an execution reported: all null until it reports any; `total` is 100 when it counts
 * without having set one.
 */
export interface ExecutionProgress {
  current: number | null;
  total: number | null;
  message: string | null;
  updatedAt: Date | null;
}

/** A change of state, as published on `{name}:state:<key>`. */
export interface StateEvent {
  type: 'state';
  key: string;
  state: ExecutionState;
  when?: Date;
  worker?: string;
  startedAt?: Date;
  completedAt?: Date;
  error?: string;
}

/** A change of progress, as published on `{name}:progress:<key>`. */
export interface ProgressEvent {
  type: 'progress';
  key: string;
  current: number | null;
  total: number | null;
  message: string | null;
  updatedAt: Date | null;
}

export type ExecutionEvent = StateEvent | ProgressEvent;

/** Options of `Execution.result()`: wait at most `timeout` ms, or until `deadline`. */
export interface ResultOptions {
  timeout?: number;
  deadline?: Date;
}

/** Options of `DocketClient.add()`. */
export interface AddOptions {
  key?: string;
  when?: Date;
  delay?: number;
  /**
   * 0 (first) … 9 (last): among due tasks no worker has read yet, the lowest number starts
   * first. @default the task's `@DocketTask({ priority })`, else 5
   */
  priority?: number;
}

/** Options of `DocketClient.replace()`. */
export interface ReplaceOptions extends AddOptions {
  key: string;
}

/** Why an execution is where it is: see `Execution.explain()`. */
export type ExplanationReason =
  | 'scheduled'
  | 'queued'
  | 'paused'
  | 'concurrency'
  | 'rate_limited'
  | 'debouncing'
  | 'struck'
  | 'no_worker'
  | 'running'
  | 'finished';

/**
 * The answer of `Execution.explain()`: its state, the first reason that applies (finished,
 * running, struck, rate_limited, debouncing, scheduled, paused, no_worker, concurrency,
 * queued), what the reason is about in words, and its times: `since` (running: its start;
 * finished: its end) and `until` (scheduled, rate_limited, debouncing: when it may start).
 */
export interface Explanation {
  state: ExecutionState | 'missing';
  reason: ExplanationReason;
  detail: string;
  since?: Date;
  until?: Date;
}
