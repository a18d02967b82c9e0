import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { StrikeSync } from '../behaviours/strike-sync.js';
import type { ResolvedDocketOptions } from '../config/resolve-options.js';
import { DOCKET_METRICS, DOCKET_OPTIONS, DOCKET_STORE, DOCKET_TRACING } from '../docket.tokens.js';
import { Execution, type ExecutionSource } from '../execution/execution.js';
import type { TaskArgs, TaskRef, TaskResult } from '../execution/task-args.type.js';
import { TaskRegistry } from '../explorer/task-registry.js';
import { DeadLetters } from '../inspection/dead-letters.js';
import { DocketInspector } from '../inspection/docket-inspector.js';
import type {
  AddOptions,
  CancelOutcome,
  ReplaceOptions,
} from '../interfaces/execution.interface.js';
import type { DocketEvent, DocketEventFilter } from '../interfaces/docket-event.interface.js';
import type { DeadLetter, DocketSnapshot } from '../interfaces/snapshot.interface.js';
import type { LiveWorker } from '../inspection/live-worker.interface.js';
import type { StrikeCondition } from '../interfaces/strike-condition.interface.js';
import type { DocketMetrics } from '../observability/docket-metrics.js';
import type { DocketTracing } from '../observability/docket-tracing.js';
import type { DocketStore, ScheduleOutcome, ScheduleRequest } from '../store/docket-store.js';
import { sendMany, type ManyItem } from './add-many.js';
import { Agenda } from './agenda.js';
import { checkKey, requestedTime } from './request-checks.js';
import { executionOf, pauseTarget, strikeLogEntry, struckExecution } from './client-parts.js';
import { EventFeed } from './event-feed.js';
import { ScheduleBatcher } from './schedule-batcher.js';
import { Requests, type RequestPlan } from './requests.js';
import { newTaskKey } from './task-key.js';

/** The producer API: schedule, replace and cancel tasks; inspect the docket. */
@Injectable()
// Nest calls onApplicationShutdown by name: no `implements`, so that the published class (whose
// hook is internal) still satisfies its declarations.
export class DocketClient {
  private readonly feed: EventFeed;
  private readonly requests: Requests;
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
    this.requests = new Requests({
      maxKeyBytes: options.maxKeyBytes,
      maxPayloadBytes: options.maxPayloadBytes,
      strict: options.worker !== false,
      registry,
      strikes,
      metrics,
      source: this.executionSource,
    });
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
    const plan = this.requests.plan(task, options, 'addMany');
    const { taskName } = plan;
    return this.tracing.produce(
      'docket.addMany',
      { 'docket.task': taskName, 'docket.count': argsList.length },
      async (trace) => {
        // every item is checked before anything is sent: a bad one fails the call, not half of it
        const requests = argsList.map((args) =>
          this.prepare(plan, args, newTaskKey(), requestedTime(options), 'add'),
        );
        const items: ManyItem[] = [];
        for (const [i, request] of requests.entries()) {
          const args = argsList[i];
          items.push(
            (await this.requests.blocked(task, request, args))
              ? { done: struckExecution(this.executionSource, request, args) }
              : { request: { ...request, ...trace }, args },
          );
        }
        const executions = await sendMany(
          (chunk) => this.store.schedule(chunk, Date.now(), this.options.executionTtl),
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
   * An empty agenda: collect tasks with `agenda.add(task, { key?, priority?, after? })(...args)`, then
   * `agenda.scatter({ over, start?, jitter? })` schedules them all, spread over a window, or none.
   */
  agenda(): Agenda {
    return new Agenda({
      requests: this.requests,
      scheduleAll: (requests) =>
        this.store.scheduleAll(requests, Date.now(), this.options.executionTtl),
      metrics: this.metrics,
      tracing: this.tracing,
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
    const plan = this.requests.plan(task, options, mode);
    const { taskName } = plan;
    // Each call is its own execution: the default key and a delay are taken at call time.
    return async (...args: unknown[]) => {
      const key = options.key ?? newTaskKey();
      const when = requestedTime(options);
      const request = this.prepare(plan, args, key, when, mode);
      if (await this.requests.blocked(task, request, args)) {
        return struckExecution(this.executionSource, request, args);
      }
      return this.tracing.produce(
        `docket.${mode}`,
        { 'docket.task': taskName, 'docket.key': key, 'docket.when': request.when },
        async (trace) =>
          this.requests.answered(
            request,
            args,
            request.after
              ? await this.scheduleWaiter({ ...request, ...trace })
              : await this.batcher.schedule({ ...request, ...trace }),
          ),
      );
    };
  }

  /**
   * Schedule one request that waits for other keys (in its own call: the batcher's script
   * knows no dependencies); a replace that would wait for itself is a TypeError.
   */
  private async scheduleWaiter(request: ScheduleRequest): Promise<ScheduleOutcome> {
    const [result] = await this.store.schedule([request], Date.now(), this.options.executionTtl);
    if (result.disposition === 'error') {
      if (result.cycle) throw new TypeError(result.error);
      throw new Error(`key ${request.key} cannot be scheduled: ${result.error}`);
    }
    return result;
  }

  /** The request of one call (see `Requests.request`), counted as added or replaced. */
  private prepare(
    plan: RequestPlan,
    args: readonly unknown[],
    key: string,
    when: number,
    mode: 'add' | 'replace',
  ): ScheduleRequest {
    const { request } = this.requests.request(plan, args, key, when, mode);
    this.metrics.count(mode === 'add' ? 'added' : 'replaced', { task: plan.taskName });
    return request;
  }

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
  async pause(task?: TaskRef): Promise<void> {
    await this.store.pause(this.pauseTarget(task, 'pause'));
  }

  /**
   * Lift the pause of the docket (no task) or of one task. Held work that may run again (its
   * task and the docket both unpaused) starts again in its order, ahead of work added after
   * it. Resuming the docket leaves tasks paused by name paused, and the other way round.
   */
  async resume(task?: TaskRef): Promise<void> {
    await this.store.resume(this.pauseTarget(task, 'resume'));
  }

  /** What is paused: the whole docket, and the tasks paused by name. */
  paused(): Promise<{ docket: boolean; tasks: string[] }> {
    return this.inspector.paused();
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

  private pauseTarget(task: TaskRef | undefined, what: string): string {
    const name = task === undefined ? undefined : this.registry.resolveName(task, false);
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
  workers(): Promise<LiveWorker[]> {
    return this.inspector.workers();
  }

  /** Live workers that run `task`. */
  taskWorkers(task: string): Promise<LiveWorker[]> {
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
