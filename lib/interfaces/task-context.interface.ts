import type { Logger } from '@nestjs/common';
import type { DocketClient } from '../producer/docket.client.js';
import type { Execution } from '../execution/execution.js';
import type { DependencyOutcome } from './execution.interface.js';

/** Progress reporting of a running task; each call is published live. */
export interface TaskProgress {
  setTotal(total: number): Promise<void>;
  increment(by?: number): Promise<void>;
  setMessage(message: string | null): Promise<void>;
}

/** Retry control of a running task. */
export interface TaskRetry {
  /** This attempt, 1-based. */
  readonly attempt: number;
  /** Total attempts allowed (1 without a `retry` option). */
  readonly attempts: number;
  /** Throws a forced retry `ms` from now (still bounded by `attempts`). */
  in(ms: number): never;
  /** Throws a forced retry at `date` (still bounded by `attempts`). */
  at(date: Date): never;
}

/** Control of a perpetual or cron task's next run. */
export interface TaskPerpetual {
  /** End the chain after this run. */
  cancel(): void;
  /** Arguments of the next run. */
  perpetuate(...args: unknown[]): void;
  /** Next run `ms` after this one ends. */
  in(ms: number): void;
  /** Next run at `date`. */
  at(date: Date): void;
}

/** The time budget of a task with a `timeout`. */
export interface TaskTimeout {
  /** Milliseconds left; `Infinity` without a timeout. */
  remaining(): number;
  /** Push the deadline by `ms` (default: the task's timeout). */
  extend(ms?: number): void;
}

/** What a handler's `@Ctx()` parameter receives. */
export interface TaskContext {
  readonly key: string;
  /**
   * The name of the task the message asks for: the handler's own, or, in the worker's
   * `fallbackTask`, the name this worker does not know.
   */
  readonly taskName: string;
  readonly attempt: number;
  readonly execution: Execution;
  readonly docket: DocketClient;
  readonly worker: string;
  readonly logger: Logger;
  /** Aborted on timeout, cancel or shutdown. */
  readonly signal: AbortSignal;
  readonly progress: TaskProgress;
  readonly retry: TaskRetry;
  readonly perpetual: TaskPerpetual;
  readonly timeout: TaskTimeout;
  /**
   * How each key of this execution's `after` ended (in the order given; empty without
   * `after`): `{ state: 'completed', result }` or `{ state: 'failed' | 'cancelled', error }`.
   * A key that never existed reads as failed with `unknown dependency: <key>`.
   */
  dependencies(): Promise<Map<string, DependencyOutcome>>;
}
