/** A live worker, from the heartbeat registry. */
export interface WorkerInfo {
  name: string;
  lastSeen: Date;
  tasks: string[];
}

/** A task a worker holds. */
export interface RunningTask {
  key: string;
  taskName: string;
  args: unknown[] | string;
  when: Date;
  attempt: number;
  worker: string;
  startedAt: Date;
}

/** A task waiting: queued (due, not yet running) or scheduled (due later). */
export interface FutureTask {
  key: string;
  taskName: string;
  args: unknown[] | string;
  when: Date;
  attempt: number;
  /** `queued`: due now, on the stream (or waiting for a concurrency slot); `scheduled`: due later. */
  state: 'queued' | 'scheduled';
  /** A queued task whose task or docket is paused: it does not start until `resume`. */
  paused?: boolean;
  /** A scheduled task waiting for its dependencies: the keys (of its `after`) still open. */
  waitingFor?: string[];
}

/**
 * How many tasks a docket holds in each state, counted in full: a snapshot's lists stop at
 * its `limit`, these numbers do not.
 */
export interface TaskCounts {
  /** Started by a worker and not ended. */
  running: number;
  /** Due now and not running: on the stream, waiting for a concurrency slot, or held while paused. */
  queued: number;
  /** Of `queued`, the tasks held because their task or the docket is paused. */
  held: number;
  /** Due later: in the queue until their time. */
  scheduled: number;
}

/** What a docket holds at one moment. */
export interface DocketSnapshot {
  takenAt: Date;
  /** Every task the docket holds: `counts.running + counts.queued + counts.scheduled`. */
  totalTasks: number;
  /** How many tasks there are in each state; a list shorter than its count was cut. */
  counts: TaskCounts;
  /** The most tasks `running` and `future` list each. */
  limit: number;
  /** Running tasks, at most `limit`. */
  running: RunningTask[];
  /** Queued and scheduled tasks, earliest due first, at most `limit`. */
  future: FutureTask[];
  workers: WorkerInfo[];
  /** What is paused: the whole docket, and the tasks paused by name. */
  paused: { docket: boolean; tasks: string[] };
}

/** A message that could not be run, or an execution that failed its last attempt. */
export interface DeadLetter {
  key: string;
  taskName: string;
  /** Decoded arguments, or the raw text when they could not be decoded. */
  args: unknown[] | string;
  error: string;
  /** The stack of `error`, as the worker saw it; absent when it was not kept. */
  errorStack?: string;
  attempt: number;
  deadAt: Date;
}

/** The counts of a docket at one moment. */
export interface DocketDepths {
  /** Due and not yet claimed by a worker. */
  queue: number;
  /** Due in the future. */
  schedule: number;
  /** Claimed by a worker and not ended. */
  running: number;
  /** Workers seen within the liveness window. */
  workers: number;
  /** Dead letters kept. */
  deadLetters: number;
  /** Due, but held while their task or the docket is paused (not counted in `queue`). */
  held: number;
  /** Strikes in effect. */
  strikes: number;
}
