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

/**
 * An attempt of an execution before its current one: one that failed and was retried
 * (`'failed'`, with its error, the error's stack and when the next attempt was due), or a start
 * whose worker went silent (`'lost'`): its message was delivered again, or dead-lettered once
 * too many of its starts were lost (`PoisonMessageError`).
 */
export interface ExecutionAttempt {
  /** Its attempt number (a lost start shares it with the start after it). */
  attempt: number;
  outcome: 'failed' | 'lost';
  worker?: string;
  /** When it was due. */
  dueAt?: Date;
  startedAt?: Date;
  /** When it failed, or when a worker found its start lost. */
  endedAt: Date;
  /** `"<Name>: <message>"` of a failed attempt. */
  error?: string;
  /** The stack of that error, as the worker saw it (cut to 8 192 characters). */
  errorStack?: string;
  /** When the next attempt was due (a failed attempt). */
  retryAt?: Date;
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
  /**
   * Keys (or executions) this execution waits for: it stays `scheduled` until every one has
   * ended, then is queued as if added at that moment (a later `when` still holds). A key that
   * never existed or already ended counts as ended (one that never existed as failed).
   */
  after?: DependencyRef | readonly DependencyRef[];
  /**
   * What a dependency that fails or is cancelled does to this execution: 'fail' ends it
   * `failed` with `DependencyFailedError` without running it; 'run' runs it anyway (it reads
   * every outcome from `ctx.dependencies()`). @default 'fail'
   */
  onDependencyFailure?: 'fail' | 'run';
}

/** A key to wait for, or an execution (its key). */
export type DependencyRef = string | { readonly key: string };

/** How a dependency ended, as its waiter reads it in `ctx.dependencies()`. */
export type DependencyOutcome =
  { state: 'completed'; result: unknown } | { state: 'failed' | 'cancelled'; error: string };

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
  | 'dependencies'
  | 'no_worker'
  | 'running'
  | 'finished';

/**
 * The answer of `Execution.explain()`: its state, the first reason that applies (finished,
 * running, struck, dependencies (`detail` names the keys still open), rate_limited, debouncing, scheduled, paused, no_worker, concurrency,
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
