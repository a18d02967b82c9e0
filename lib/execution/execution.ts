import { ExecutionCancelledError } from '../errors/execution-cancelled.error.js';
import { TimeoutError } from '../errors/timeout.error.js';
import type { DocketStore, RunRecord } from '../store/docket-store.js';
import type { AttemptRecord } from '../store/read-records.js';
import type {
  Disposition,
  ExecutionAttempt,
  ExecutionEvent,
  ExecutionProgress,
  ExecutionState,
  Explanation,
  ResultOptions,
  StateEvent,
} from '../interfaces/execution.interface.js';
import { decodeArgs, decodeResult } from './codec.js';
import { TERMINAL_STATES, progressOf, rebuildError } from './events.js';
import { EventQueue } from './event-queue.js';

/** What an `Execution` reads from: the docket store, seen through the reads it needs. */
export type ExecutionSource = Pick<
  DocketStore,
  'readExecution' | 'readResult' | 'onExecution' | 'onReconnect'
> & {
  /** Why the execution of `key` is where it is (the read model answers it). */
  explain(key: string): Promise<Explanation>;
};

/** Fields an `Execution` is made from. */
export interface ExecutionInit {
  key: string;
  taskName: string;
  args: unknown[];
  when: Date;
  attempt: number;
  disposition: Disposition;
  state: ExecutionState;
  generation?: number;
}

/**
 * One execution of a task key: what was scheduled, and its state as last read from Redis.
 * `sync()` refreshes it in place; `result()` and `subscribe()` wait on live events. `R` is
 * what `result()` resolves to: the handler's return type for a task added by reference.
 */
export class Execution<R = unknown> {
  readonly key: string;
  taskName: string;
  args: unknown[];
  when: Date;
  attempt: number;
  readonly disposition: Disposition;
  state: ExecutionState;
  worker?: string;
  startedAt?: Date;
  completedAt?: Date;
  error?: string;
  /** The stack of `error`, as the worker saw it (cut to 8 192 characters); absent without. */
  errorStack?: string;
  /**
   * The attempts before the current one, oldest first (the last 20): retried failures with
   * their errors and stacks, and starts whose worker went silent (`'lost'`); as Redis held them
   * when last read (`sync()`), empty for a first attempt and in a handler's `ctx.execution`.
   */
  earlierAttempts: ExecutionAttempt[] = [];
  /** The keys it waits (or waited) for, in the order of its `after`; absent without. */
  after?: string[];
  progress: ExecutionProgress = { current: null, total: null, message: null, updatedAt: null };
  /** @internal */
  generation: number;

  /** @internal */
  constructor(
    private readonly source: ExecutionSource,
    init: ExecutionInit,
  ) {
    this.key = init.key;
    this.taskName = init.taskName;
    this.args = init.args;
    this.when = init.when;
    this.attempt = init.attempt;
    this.disposition = init.disposition;
    this.state = init.state;
    this.generation = init.generation ?? 0;
  }

  private apply(run: RunRecord): void {
    this.state = run.state;
    if (run.taskName) this.taskName = run.taskName;
    try {
      this.args = decodeArgs(run.args);
    } catch {
      // keep what we had: the stored text is not ours to fix here
    }
    this.when = new Date(run.when);
    this.attempt = run.attempt;
    this.generation = run.generation;
    this.worker = run.worker;
    this.startedAt = run.startedAt === undefined ? undefined : new Date(run.startedAt);
    this.completedAt = run.completedAt === undefined ? undefined : new Date(run.completedAt);
    this.error = run.error;
    this.errorStack = run.stack;
    this.earlierAttempts = (run.attempts ?? []).map(attemptOf);
    this.after = run.after;
  }

  /**
   * Why this execution is where it is, read from Redis now: `reason` is the first of
   * finished, running, struck, dependencies, rate_limited, debouncing, scheduled, paused, no_worker,
   * concurrency, queued that applies; `detail` says it in words (how many are ahead, which
   * slot and who holds it, which worker runs it); `since` and `until` are its times.
   */
  explain(): Promise<Explanation> {
    return this.source.explain(this.key);
  }

  /**
   * Re-read state and progress from Redis. Returns false when Redis holds nothing for the key
   * (never added, expired, or finished with `executionTtl: 0`); the object is then unchanged.
   */
  async sync(): Promise<boolean> {
    const read = await this.source.readExecution(this.key);
    if (!read) return false;
    this.progress = progressOf(read.progress);
    this.apply(read.run);
    return true;
  }

  /**
   * Wait for the execution to end and return its result. Rejects with the task's error (same
   * `name` and `message`), `ExecutionCancelledError` when cancelled or struck, or
   * `TimeoutError` when `timeout`/`deadline` passes first.
   */
  async result<T = R>(options: ResultOptions = {}): Promise<T> {
    if (this.disposition === 'struck') {
      throw new ExecutionCancelledError(`execution ${this.key} was struck and never ran`);
    }
    const deadline =
      options.deadline?.getTime() ??
      (options.timeout === undefined ? undefined : Date.now() + options.timeout);
    if (deadline !== undefined && deadline <= Date.now()) {
      // No time to wait: answer from what Redis holds now.
      if ((await this.sync()) && TERMINAL_STATES.has(this.state)) return this.outcome<T>();
      throw new TimeoutError(`execution ${this.key} did not finish in time`);
    }
    const events = this.events();
    try {
      for (;;) {
        const next = await nextBefore(events, deadline, this.key);
        if (next.done) break;
        if (next.value.type === 'state' && TERMINAL_STATES.has(next.value.state)) break;
      }
    } finally {
      await events.return?.();
    }
    return this.outcome<T>();
  }

  private async outcome<T>(): Promise<T> {
    switch (this.state) {
      case 'cancelled':
        throw new ExecutionCancelledError(`execution ${this.key} was cancelled`);
      case 'failed':
        throw rebuildError(this.error);
      case 'completed': {
        const text = await this.source.readResult(this.key);
        return (text === null ? undefined : decodeResult(text)) as T;
      }
      default:
        throw new Error(
          `execution ${this.key} is unknown to Redis: never added, expired, or finished with executionTtl 0`,
        );
    }
  }

  /**
   * Live events of this execution: first its current state and progress, then each change as
   * it is published. Ends after a terminal state (or at once when Redis holds nothing for the
   * key); breaking out of the loop unsubscribes.
   */
  subscribe(): AsyncIterable<ExecutionEvent> {
    return { [Symbol.asyncIterator]: () => this.events() };
  }

  private events(): AsyncIterator<ExecutionEvent> {
    const queue = new EventQueue<ExecutionEvent>();
    let undo: Promise<() => Promise<void>> | undefined;
    let finished = false;
    // Events published while the subscriber reconnected are lost: read the state again then.
    const stopResync = this.source.onReconnect(() => {
      void this.sync().then(
        (known) => {
          if (!known) queue.push(END);
          else if (TERMINAL_STATES.has(this.state)) queue.push(this.stateEvent());
        },
        () => undefined,
      );
    });
    const finish = async (): Promise<IteratorResult<ExecutionEvent>> => {
      finished = true;
      stopResync();
      queue.close();
      const stop = await undo?.catch(() => undefined);
      await stop?.();
      return { done: true, value: undefined };
    };
    const start = async (): Promise<void> => {
      undo = this.source.onExecution(this.key, (event) => queue.push(event));
      await undo;
      const known = await this.sync();
      const initial = this.stateEvent() as StateEvent;
      const pending: ExecutionEvent[] = [];
      for (let e = await peek(queue); e; e = await peek(queue)) pending.push(e);
      queue.push(initial);
      queue.push({ type: 'progress', key: this.key, ...this.progress });
      if (!known || TERMINAL_STATES.has(this.state)) {
        queue.push(END);
        return;
      }
      // an event that only repeats the state just read is not news
      for (const e of pending) {
        if (e.type !== 'state' || e.state !== initial.state) queue.push(e);
      }
    };
    let started: Promise<void> | undefined;
    return {
      next: async () => {
        if (finished) return { done: true, value: undefined };
        started ??= start();
        await started.catch(async (error: unknown) => {
          await finish();
          throw error;
        });
        const event = await queue.next();
        if (event === undefined || event === END) return finish();
        if (event.type === 'state') {
          this.applyEvent(event);
          if (TERMINAL_STATES.has(event.state)) queue.push(END);
        } else {
          this.progress = {
            current: event.current,
            total: event.total,
            message: event.message,
            updatedAt: event.updatedAt,
          };
        }
        return { done: false, value: event };
      },
      return: finish,
    };
  }

  private applyEvent(event: ExecutionEvent & { type: 'state' }): void {
    this.state = event.state;
    if (event.when) this.when = event.when;
    if (event.state === 'running') {
      this.worker = event.worker;
      this.startedAt = event.startedAt;
    }
    if (event.completedAt) this.completedAt = event.completedAt;
    if (event.error) this.error = event.error;
  }

  private stateEvent(): ExecutionEvent {
    return {
      type: 'state',
      key: this.key,
      state: this.state,
      when: this.when,
      worker: this.worker,
      startedAt: this.startedAt,
      completedAt: this.completedAt,
      error: this.error,
    };
  }
}

/** Marks the end of a subscription in its queue. */
const END: ExecutionEvent = { type: 'state', key: '', state: 'cancelled' };

/** Take an already queued event without waiting. */
async function peek<T>(queue: EventQueue<T>): Promise<T | undefined> {
  return queue.size > 0 ? queue.next() : undefined;
}

async function nextBefore<T>(
  events: AsyncIterator<T>,
  deadline: number | undefined,
  key: string,
): Promise<IteratorResult<T>> {
  if (deadline === undefined) return events.next();
  const left = deadline - Date.now();
  if (left <= 0) throw new TimeoutError(`execution ${key} did not finish in time`);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      events.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new TimeoutError(`execution ${key} did not finish in time`)),
          left,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** An earlier attempt as `Execution.earlierAttempts` shows it. */
function attemptOf(a: AttemptRecord): ExecutionAttempt {
  const out: ExecutionAttempt = {
    attempt: a.attempt,
    outcome: a.outcome,
    endedAt: new Date(a.endedAt),
  };
  if (a.worker !== undefined) out.worker = a.worker;
  if (a.dueAt !== undefined) out.dueAt = new Date(a.dueAt);
  if (a.startedAt !== undefined) out.startedAt = new Date(a.startedAt);
  if (a.error !== undefined) out.error = a.error;
  if (a.stack !== undefined) out.errorStack = a.stack;
  if (a.retryAt !== undefined) out.retryAt = new Date(a.retryAt);
  return out;
}
