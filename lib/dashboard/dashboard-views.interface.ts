/**
 * What the dashboard's JSON endpoints answer. Times are ISO strings; arguments are a short
 * preview text (null when `showArguments` is off), never the values themselves.
 * (This file imports nothing: the page's browser code is type-checked against it alone.)
 */

/** An execution's state (`ExecutionState`). */
export type ViewState = 'scheduled' | 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** One sample of the docket, taken every `sampleInterval`. */
export interface DashboardSample {
  /** Epoch ms. */
  at: number;
  queued: number;
  scheduled: number;
  running: number;
  workers: number;
  /** Executions that completed / failed since the previous sample; null without `throughput`. */
  completed: number | null;
  failed: number | null;
}

export interface DashboardCounts {
  /** Due and waiting for a worker, held ones included. */
  queued: number;
  /** Of `queued`, the tasks held because their task or the docket is paused. */
  held: number;
  /** Due in the future. */
  scheduled: number;
  /** Held by a worker. */
  running: number;
  workers: number;
  deadLetters: number;
  strikes: number;
}

export interface WorkerView {
  name: string;
  /** Null when the stored time is not a valid date. */
  lastSeen: string | null;
  tasks: string[];
  /**
   * What the worker told about itself when it registered; each null when it did not (a
   * worker of an older version): its host name, process id, start (its uptime runs from it),
   * nestjs-docket version, and how many tasks it runs at once at most.
   */
  host: string | null;
  pid: number | null;
  startedAt: string | null;
  version: string | null;
  concurrency: number | null;
  /**
   * What it runs now (`api/workers` only; not in the overview): its busy slots, from the
   * running tasks the docket lists.
   */
  running?: WorkerTaskView[];
}

/** A task a worker runs now. */
export interface WorkerTaskView {
  key: string;
  taskName: string;
  startedAt: string | null;
}

/** What is paused: the whole docket, and the tasks paused by name (sorted). */
export interface PausedView {
  docket: boolean;
  tasks: string[];
}

/** A task name the docket knows: run by a live worker, or paused by name. */
export interface TaskView {
  name: string;
  /** How many live workers run it. */
  workers: number;
  /** Paused by name (the docket's own pause is in `OverviewView.paused.docket`). */
  paused: boolean;
}

export interface OverviewView {
  docket: string;
  takenAt: string;
  readOnly: boolean;
  counts: DashboardCounts;
  paused: PausedView;
  /** Every task of a live worker and every task paused by name, by name. */
  tasks: TaskView[];
  sampleInterval: number;
  history: number;
  throughput: boolean;
  /** Samples taken after `since` (all kept samples without it). */
  samples: DashboardSample[];
  workers: WorkerView[];
}

export interface ProgressView {
  current: number | null;
  /** Null until the task reports progress; 100 when it counts without a total. */
  total: number | null;
  message: string | null;
  updatedAt: string | null;
}

export interface RunningView {
  key: string;
  taskName: string;
  args: string | null;
  attempt: number;
  worker: string;
  /** Null when the stored time is not a valid date. */
  when: string | null;
  /** Null when the stored time is not a valid date. */
  startedAt: string | null;
  progress: ProgressView;
}

export interface ScheduledView {
  key: string;
  taskName: string;
  args: string | null;
  attempt: number;
  /** Null when the stored time is not a valid date. */
  when: string | null;
  /** `queued`: due now, waiting for a worker; `scheduled`: due later. */
  state: 'queued' | 'scheduled';
  /** Queued, and its task or the docket is paused: it does not start until resumed. */
  paused: boolean;
}

/** Why a task is where it is (`Execution.explain()`), times as ISO strings. */
export interface ExplanationView {
  key: string;
  state: ViewState;
  /** The first reason that applies: an `ExplanationReason` (see `Explanation`). */
  reason: string;
  detail: string;
  /** Running: its start; finished: its end. */
  since?: string;
  /** Scheduled, rate limited, debouncing: when it may start. */
  until?: string;
}

export interface FailureView {
  key: string;
  taskName: string | null;
  args: string | null;
  error: string;
  attempt: number | null;
  failedAt: string;
}

export interface DeadLetterView {
  /** Its id in the dead-letter stream: names it for the bulk actions (`ids`). */
  id: string;
  key: string;
  taskName: string;
  args: string | null;
  error: string;
  attempt: number;
  /** Null when the stored time is not a valid date. */
  deadAt: string | null;
}

export interface FailuresView {
  /** Executions seen failing (their last attempt) since this process started, newest first. */
  recent: FailureView[];
}

export interface StrikeView {
  /** Names the strike for `restore`. */
  id: string;
  task: string | null;
  parameter: string | null;
  operator: string;
  /** The value as the CLI writes it (`"text"`, `42`, an ISO date), or null for a task strike. */
  value: string | null;
  /**
   * The type of the value, as its prefix in the strike form and the CLI (`int`, `float`,
   * `bool`, `date`, `str`, `json`), or null for a task strike.
   */
  type: string | null;
}

/** What is known of an execution's dead letter (its last attempt failed, or it could not run). */
export interface DeadLetterDetailView {
  error: string;
  errorStack: string | null;
  attempt: number;
  /** Null when the stored time is not a valid date. */
  deadAt: string | null;
}

/** An attempt before the current one (`Execution.earlierAttempts`), times as ISO 8601. */
export interface AttemptView {
  attempt: number;
  outcome: 'failed' | 'lost';
  worker: string | null;
  startedAt: string | null;
  endedAt: string | null;
  error: string | null;
  errorStack: string | null;
  retryAt: string | null;
}

/** One step of an execution's life, as far as the docket records it. */
export interface TimelineEntry {
  /** ISO 8601. */
  at: string;
  what: 'added' | 'due' | 'started' | 'failed' | 'lost' | 'completed' | 'cancelled';
  /** The attempt it concerns (none for added). */
  attempt: number | null;
  /** A worker, an error, a retry time: what goes with it. */
  detail: string | null;
}

/** Everything the docket keeps of one execution, for its detail page. */
export interface TaskDetailView {
  key: string;
  taskName: string;
  state: ViewState;
  /** Whether its task or the docket is paused (it does not start until resumed). */
  paused: boolean;
  attempt: number;
  /** When it is (or was) due. */
  when: string | null;
  /** The worker that runs (or ran) its current attempt. */
  worker: string | null;
  startedAt: string | null;
  completedAt: string | null;
  /**
   * Each argument in full, formatted with its type (`1200n`, a `Date`, a `Map`); null when
   * `showArguments` is off.
   */
  args: string[] | null;
  /** Its result, formatted likewise (completed only; null when `showArguments` is off). */
  result: string | null;
  /** `<Name>: <message>` of a failed execution. */
  error: string | null;
  /** The stack of that error, as the worker saw it. */
  errorStack: string | null;
  /** The attempts before the current one, oldest first. */
  attempts: AttemptView[];
  /** Its life in order (see timeline.ts for what is recorded). */
  timeline: TimelineEntry[];
  deadLetter: DeadLetterDetailView | null;
  progress: ProgressView;
  /** Why it is where it is. */
  explanation: ExplanationView;
  /** The actions its state allows (all false on a read-only dashboard). */
  actions: { cancel: boolean; runNow: boolean; replaceAt: boolean; retry: boolean };
}

/** A live execution in a list page (`api/tasks`). */
export interface TaskRowView {
  key: string;
  taskName: string;
  args: string | null;
  attempt: number;
  /** Null when the stored time is not a valid date. */
  when: string | null;
  state: 'running' | 'queued' | 'scheduled';
  /** Queued, and its task or the docket is paused: it does not start until resumed. */
  paused: boolean;
  /** Scheduled and waiting for its dependencies: the keys still open (null otherwise). */
  waitingFor: string[] | null;
  /** Running: its worker and start. */
  worker: string | null;
  startedAt: string | null;
}

/** A finished execution in the history (`api/history`). */
export interface FinishedRowView {
  key: string;
  taskName: string;
  args: string | null;
  attempt: number;
  state: 'completed' | 'failed' | 'cancelled';
  worker: string | null;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
}

/** One page of a list: the items from `offset`, and how many pass the filter in all. */
export interface PageView<T> {
  total: number;
  offset: number;
  limit: number;
  items: T[];
}

/**
 * What a bulk action did (`api/bulk`): how many items it touched (cancelled, retried, deleted)
 * and how many it skipped, by reason: `finished` (the task had already ended), `not_found` (no
 * such task), `invalid_key`, `gone` (no such dead letter any more), `unreadable` (a dead letter
 * without key or task, or whose arguments do not decode), `live` (its key is live again).
 */
export interface BulkView {
  action: 'cancel' | 'retry' | 'purge';
  touched: number;
  skipped: number;
  reasons: Record<string, number>;
  /** Over a filter: whether items of it are left; send `cursor` back to go on. */
  more: boolean;
  cursor: string | null;
}
