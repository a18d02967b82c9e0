import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { DEFAULT_PRIORITY } from '../behaviours/priority.js';
import { StrikeSync } from '../behaviours/strike-sync.js';
import type { ResolvedDocketOptions } from '../config/resolve-options.js';
import { DOCKET_METRICS, DOCKET_OPTIONS, DOCKET_STORE, DOCKET_TRACING } from '../docket.tokens.js';
import { Execution, type ExecutionSource } from '../execution/execution.js';
import type { TaskArgs, TaskRef, TaskResult } from '../execution/task-args.type.js';
import { TaskRegistry } from '../explorer/task-registry.js';
import { DeadLetters } from '../inspection/dead-letters.js';
import { DocketInspector, pausedOf } from '../inspection/docket-inspector.js';
import type {
  AddOptions,
  CancelOutcome,
  ReplaceOptions,
} from '../interfaces/execution.interface.js';
import type { DocketEvent, DocketEventFilter } from '../interfaces/docket-event.interface.js';
import type { DeadLetter, DocketSnapshot, WorkerInfo } from '../interfaces/snapshot.interface.js';
import type { StrikeCondition } from '../interfaces/strike-condition.interface.js';
import type { DocketMetrics } from '../observability/docket-metrics.js';
import type { DocketTracing } from '../observability/docket-tracing.js';
import type { DocketStore, ScheduleRequest } from '../store/docket-store.js';
import { sendMany } from './add-many.js';
import { Agenda } from './agenda.js';
import { checkKey, encodedArgs, requestedPriority, requestedTime } from './request-checks.js';
import { executionOf, pauseTarget, strikeLogEntry, struckExecution } from './client-parts.js';
import { EventFeed } from './event-feed.js';
import { ScheduleBatcher } from './schedule-batcher.js';
import { newTaskKey } from './task-key.js';

/** The producer API: schedule, replace and cancel tasks; inspect the docket. */
@Injectable()
// Nest calls onApplicationShutdown by name: no `implements`, so that the published class (whose
// hook is internal) still satisfies its declarations.
export class DocketClient {
  private readonly feed: EventFeed;
  /** @internal What the executions this client hands out read from. */
  readonly executionSource: ExecutionSource;

  /** @internal Nest injects the engine's parts; applications get this class from Nest. */
  constructor(
    @Inject(DOCKET_OPTIONS) private readonly options: ResolvedDocketOptions,
    @Inject(DOCKET_STORE) private readonly store: DocketStore,
    @Inject(DOCKET_METRICS) private readonly metrics: DocketMetrics,
    @Inject(DOCKET_TRACING) private readonly tracing: DocketTracing,
    private readonly registry: TaskRegistry,
    private readonly strikes: StrikeSync,
    private readonly batcher: ScheduleBatcher,
    private readonly inspector: DocketInspector,
    private readonly dead: DeadLetters,
  ) {
    const logger = new Logger('Docket');
    this.feed = new EventFeed(store, registry, (message) => logger.warn(message));
    this.executionSource = {
      readExecution: (key) => store.readExecution(key),
      readResult: (key) => store.readResult(key),
      onExecution: (key, handler) => store.onExecution(key, handler),
      onReconnect: (listener) => store.onReconnect(listener),
      explain: (key) => inspector.explain(key),
    };
  }

  /** @internal */
  onApplicationShutdown(): void {
    this.feed.close();
  }

  /** The docket's name. */
  get name(): string {
    return this.options.name;
  }

  /**
   * Schedule `task` under `key` (a fresh UUIDv7 by default) at `when` or after `delay` (now by
   * default). An `add` of a key that is scheduled, queued or running changes nothing and
   * returns `disposition: 'already_scheduled'`.
   */
  add<F extends (...args: any[]) => unknown>(
    task: F,
    options?: AddOptions,
  ): (...args: TaskArgs<F>) => Promise<Execution<TaskResult<F>>>;
  add(task: string, options?: AddOptions): (...args: unknown[]) => Promise<Execution>;
  add(task: TaskRef, options: AddOptions = {}): (...args: any[]) => Promise<Execution> {
    return this.scheduler(task, options, 'add');
  }

  /**
   * Add `task` once per entry of `argsList` (each its own execution with a fresh key), at
   * `when` or after `delay`; resolves with the executions in the same order. The adds travel
   * together, a few dozen per Redis call.
   */
  addMany<F extends (...args: any[]) => unknown>(
    task: F,
    argsList: readonly TaskArgs<F>[],
    options?: Omit<AddOptions, 'key'>,
  ): Promise<Execution<TaskResult<F>>[]>;
  addMany(
    task: string,
    argsList: readonly unknown[][],
    options?: Omit<AddOptions, 'key'>,
  ): Promise<Execution[]>;
  addMany(
    task: TaskRef,
    argsList: readonly unknown[][],
    options: Omit<AddOptions, 'key'> = {},
  ): Promise<Execution[]> {
    if (!Array.isArray(argsList) || argsList.some((args) => !Array.isArray(args))) {
      throw new TypeError('addMany(task, argsList): argsList is an array of argument arrays');
    }
    if ((options as AddOptions).key !== undefined) {
      throw new TypeError('addMany() gives each execution its own key: use add() for a known key');
    }
    const taskName = this.registry.resolveName(task, this.options.worker !== false);
    requestedTime(options);
    const priority = requestedPriority(options, this.priorityOf(taskName));
    return this.tracing.produce(
      'docket.addMany',
      { 'docket.task': taskName, 'docket.count': argsList.length },
      async (trace) => {
        // every item is checked before anything is sent: a bad one fails the call, not half of it
        const prepared = argsList.map((args) =>
          this.prepare(task, taskName, args, newTaskKey(), requestedTime(options), 'add', priority),
        );
        await this.strikes.ready();
        const items = prepared.map(({ request, args }) =>
          this.struck(task, request, args)
            ? { done: struckExecution(this.executionSource, request, args) }
            : { request: { ...request, ...trace }, args },
        );
        const executions = await sendMany(
          this.store,
          items,
          (request, args, result) => executionOf(this.executionSource, request, args, result),
          async (request) => (await this.getExecution(request.key)) ?? undefined,
        );
        for (const e of executions) {
          if (e.disposition === 'scheduled') this.metrics.count('scheduled', { task: taskName });
        }
        return executions;
      },
    );
  }

  /**
   * An empty agenda: collect tasks with `agenda.add(task, { key?, priority? })(...args)`, then
   * `agenda.scatter({ over, start?, jitter? })` schedules them all, spread over a window, or none.
   */
  agenda(): Agenda {
    return new Agenda({
      maxKeyBytes: this.options.maxKeyBytes,
      maxPayloadBytes: this.options.maxPayloadBytes,
      store: this.store,
      strikes: this.strikes,
      metrics: this.metrics,
      tracing: this.tracing,
      resolve: (task) => {
        const taskName = this.registry.resolveName(task, this.options.worker !== false);
        return { taskName, priority: this.priorityOf(taskName) };
      },
      struck: (task, request, args) => this.struck(task, request, args),
      executionOf: (request, args, result) =>
        executionOf(this.executionSource, request, args, result),
    });
  }

  /** Atomically remove any scheduled or queued copy of `key` and schedule this one. */
  replace<F extends (...args: any[]) => unknown>(
    task: F,
    options: ReplaceOptions,
  ): (...args: TaskArgs<F>) => Promise<Execution<TaskResult<F>>>;
  replace(task: string, options: ReplaceOptions): (...args: unknown[]) => Promise<Execution>;
  replace(task: TaskRef, options: ReplaceOptions): (...args: any[]) => Promise<Execution> {
    if (!options || typeof options.key !== 'string') {
      throw new TypeError('replace() needs a key: replace(task, { key, when | delay })');
    }
    return this.scheduler(task, options, 'replace');
  }

  private scheduler(
    task: TaskRef,
    options: AddOptions,
    mode: 'add' | 'replace',
  ): (...args: unknown[]) => Promise<Execution> {
    const taskName = this.registry.resolveName(task, this.options.worker !== false);
    requestedTime(options); // a bad when or delay fails here, before anything is called
    const priority = requestedPriority(options, this.priorityOf(taskName));
    if (options.key !== undefined) checkKey(options.key, this.options.maxKeyBytes, mode);
    // Each call is its own execution: the default key and a delay are taken at call time.
    return async (...args: unknown[]) => {
      const key = options.key ?? newTaskKey();
      const { request } = this.prepare(
        task,
        taskName,
        args,
        key,
        requestedTime(options),
        mode,
        priority,
      );
      await this.strikes.ready();
      if (this.struck(task, request, args))
        return struckExecution(this.executionSource, request, args);
      const execution = await this.tracing.produce(
        `docket.${mode}`,
        { 'docket.task': taskName, 'docket.key': key, 'docket.when': request.when },
        async (trace) =>
          executionOf(
            this.executionSource,
            request,
            args,
            await this.batcher.schedule({ ...request, ...trace }),
          ),
      );
      if (execution.disposition === 'scheduled') {
        this.metrics.count('scheduled', { task: taskName });
      }
      return execution;
    };
  }

  /** The request of one call: its arguments encoded and checked against `maxPayloadBytes`. */
  private prepare(
    task: TaskRef,
    taskName: string,
    args: readonly unknown[],
    key: string,
    when: number,
    mode: 'add' | 'replace',
    priority: number,
  ): { request: ScheduleRequest; args: readonly unknown[] } {
    const encoded = encodedArgs(args, taskName, key, this.options.maxPayloadBytes);
    this.metrics.count(mode === 'add' ? 'added' : 'replaced', { task: taskName });
    const request: ScheduleRequest = { key, taskName, args: encoded, when, attempt: 1, mode };
    if (priority !== DEFAULT_PRIORITY) request.priority = priority;
    return { request, args };
  }

  /** The priority the task declares where it is registered (5 for a task known by name only). */
  private priorityOf(taskName: string): number {
    return this.registry.get(taskName)?.plan.priority ?? DEFAULT_PRIORITY;
  }

  /** Whether a strike in effect blocks this call (counted when it does). */
  private struck(task: TaskRef, request: ScheduleRequest, args: readonly unknown[]): boolean {
    const { taskName } = request;
    if (!this.strikes.list.matches(taskName, this.registry.parametersOf(task, taskName), args)) {
      return false;
    }
    this.metrics.count('stricken', { task: taskName });
    return true;
  }

  /** The execution Redis answered for a request (the live one for a key already scheduled). */
  /**
   * Cancel `key`: a scheduled or queued task never starts; a running one has its `signal`
   * aborted and ends `cancelled`, whatever its handler does. `'cancelled'` means the execution
   * ends cancelled (also when the cancel races a worker's claim or end: the order in Redis
   * decides); `'finished'` that it had already ended; `'not_found'` that Redis holds nothing for
   * the key.
   */
  async cancel(key: string): Promise<CancelOutcome> {
    checkKey(key, this.options.maxKeyBytes, 'cancel');
    const { found, taskName } = await this.tracing.produce(
      'docket.cancel',
      { 'docket.key': key },
      () => this.store.cancel(key, Date.now(), this.options.executionTtl),
    );
    if (found === 'scheduled' || found === 'queued') {
      this.metrics.count('cancelled', { task: taskName });
    }
    if (found === 'missing') return 'not_found';
    return found === 'scheduled' || found === 'queued' || found === 'running'
      ? 'cancelled'
      : 'finished';
  }

  /** The execution of `key` as Redis knows it now, or null. */
  async getExecution(key: string): Promise<Execution | null> {
    checkKey(key, this.options.maxKeyBytes, 'getExecution');
    const execution = new Execution(this.executionSource, {
      key,
      taskName: '',
      args: [],
      when: new Date(0),
      attempt: 1,
      disposition: 'scheduled',
      state: 'scheduled',
    });
    return (await execution.sync()) ? execution : null;
  }

  /**
   * Block adds and queued tasks that match `condition` (a task, a parameter condition, or
   * both), in every process of this docket, until `restore`.
   */
  async strike(condition: StrikeCondition): Promise<void> {
    await this.writeStrike('strike', condition);
  }

  /** Lift a strike given with the same condition. */
  async restore(condition: StrikeCondition): Promise<void> {
    await this.writeStrike('restore', condition);
  }

  private async writeStrike(op: 'strike' | 'restore', condition: StrikeCondition): Promise<void> {
    const task =
      condition.task === undefined ? '' : this.registry.resolveName(condition.task, false);
    await this.store.appendStrike(strikeLogEntry(op, condition, task));
    await this.strikes.ready();
    await this.strikes.catchUp();
  }

  /**
   * Pause the docket (no task) or one task: nothing of it starts on any worker until `resume`
   * (running tasks finish). Its work is kept: adds are accepted, future tasks come due, and
   * due work is held in state `queued`, giving back any concurrency slot it had reserved. The
   * pause lives in Redis: it holds for every process and across restarts.
   */
  async pause(task?: string | TaskRef): Promise<void> {
    await this.store.pause(this.pauseTarget(task, 'pause'));
  }

  /**
   * Lift the pause of the docket (no task) or of one task. Held work that may run again (its
   * task and the docket both unpaused) starts again in its order, ahead of work added after
   * it. Resuming the docket leaves tasks paused by name paused, and the other way round.
   */
  async resume(task?: string | TaskRef): Promise<void> {
    await this.store.resume(this.pauseTarget(task, 'resume'));
  }

  /** What is paused: the whole docket, and the tasks paused by name. */
  async paused(): Promise<{ docket: boolean; tasks: string[] }> {
    return pausedOf(await this.store.pausedNames());
  }

  /**
   * The docket's events, from every process (`scheduled`, starts and ends, cancels that no
   * worker saw), of one task and some types when `filter` says so. Live and best effort: while
   * a subscription is open the docket's scripts publish events (one Redis channel, a batch of
   * events per message); nothing is replayed.
   */
  events(filter?: DocketEventFilter): Observable<DocketEvent> {
    return this.feed.observe(filter);
  }

  private pauseTarget(task: string | TaskRef | undefined, what: string): string {
    const name = task === undefined ? undefined : this.registry.resolveName(task as TaskRef, false);
    return pauseTarget(name, this.options.maxKeyBytes, what);
  }

  /**
   * What is running and waiting now, and which workers are alive; at most `limit` tasks of
   * each place are listed (1 000 by default; `Infinity` lists all).
   */
  snapshot(options?: { limit?: number }): Promise<DocketSnapshot> {
    return this.inspector.snapshot(options);
  }

  /** Workers whose heartbeat is recent. */
  workers(): Promise<WorkerInfo[]> {
    return this.inspector.workers();
  }

  /** Live workers that run `task`. */
  taskWorkers(task: string): Promise<WorkerInfo[]> {
    return this.inspector.taskWorkers(task);
  }

  /** Remove every scheduled and queued task (running ones go on); returns how many. */
  clear(): Promise<number> {
    return this.store.clear(Date.now(), this.options.executionTtl);
  }

  /** Messages that could not run and executions that failed their last attempt. */
  deadLetters(): Promise<DeadLetter[]> {
    return this.dead.list();
  }

  /**
   * Schedule dead letters again, now, with their key and arguments; returns how many were
   * scheduled. A dead letter whose arguments cannot be decoded stays.
   */
  async retryDeadLetter(target: string | { all: true }): Promise<number> {
    if (typeof target === 'object' && target !== null && target.all === true) {
      return this.dead.retry({ all: true });
    }
    return this.dead.retry(checkKey(target, this.options.maxKeyBytes, 'retryDeadLetter'));
  }

  /** Delete every dead letter; returns how many there were. */
  purgeDeadLetters(): Promise<number> {
    return this.dead.purge();
  }
}
