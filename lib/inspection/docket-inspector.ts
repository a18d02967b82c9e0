import { Inject, Injectable } from '@nestjs/common';
import { StrikeSync } from '../behaviours/strike-sync.js';
import type { ResolvedDocketOptions, ResolvedWorkerOptions } from '../config/resolve-options.js';
import { DOCKET_OPTIONS, DOCKET_STORE } from '../docket.tokens.js';
import { decodeArgs } from '../execution/codec.js';
import { progressOf } from '../execution/events.js';
import type { TaskRef } from '../execution/task-args.type.js';
import { TaskRegistry } from '../explorer/task-registry.js';
import type { DocketDepths } from '../interfaces/snapshot.interface.js';
import type {
  ExecutionProgress,
  Explanation,
  StateEvent,
} from '../interfaces/execution.interface.js';
import type {
  DocketSnapshot,
  FutureTask,
  RunningTask,
  TaskCounts,
} from '../interfaces/snapshot.interface.js';
import type { StrikeCondition } from '../interfaces/strike-condition.interface.js';
import type {
  FinishedState,
  FinishedTask,
  TaskHistoryOptions,
  ListedTask,
  LiveState,
  TaskHistory,
  TaskList,
  TaskListOptions,
} from '../interfaces/task-list.interface.js';
import type { DocketStore, WorkerRecord } from '../store/docket-store.js';
import { redactUrl } from '../store/redis-url.js';
import type { LiveWorker } from './live-worker.interface.js';

/** The options a docket runs with, defaults filled in (the URL without its password). */
export interface DocketConfiguration {
  name: string;
  url: string;
  executionTtl: number;
  heartbeatInterval: number;
  missedHeartbeats: number;
  maxPayloadBytes: number;
  metrics: boolean;
  /** This process's worker options (`fallbackTask` when given), or false for a producer-only process. */
  worker: ResolvedWorkerOptions | false;
}

/** A strike in effect: its identity and the condition it was given with. */
export interface StrikeInEffect {
  id: string;
  condition: StrikeCondition;
}

/** How many tasks `explain()` counts ahead of a queued one, at most. */
const EXPLAIN_AHEAD_CAP = 10_000;

const LIVE_STATES: readonly LiveState[] = ['running', 'queued', 'scheduled'];
const FINISHED_STATES: readonly FinishedState[] = ['completed', 'failed', 'cancelled'];
/** The most finished executions a history keeps. */
const HISTORY_MAX = 10_000;

/** The states a list asks for (every one when none), each checked; `what` names the call. */
function statesOf<S extends string>(given: S[] | undefined, all: readonly S[], what: string): S[] {
  const states = given?.length ? [...new Set(given)] : [...all];
  for (const state of states) {
    if (!all.includes(state)) {
      throw new TypeError(`${what}: states are ${all.join(', ')}, not ${String(state)}`);
    }
  }
  return states;
}

/** The page a list asks for: `offset` ≥ 0 (default 0), `limit` 1 to 1 000 (default 50). */
function pageOf(options: { offset?: number; limit?: number }): { offset: number; limit: number } {
  return {
    offset: Math.max(0, Math.floor(Number(options.offset ?? 0)) || 0),
    limit: Math.min(1_000, Math.max(1, Math.floor(Number(options.limit ?? 50)) || 50)),
  };
}

/** How many tasks `snapshot()` lists in each list by default. */
export const SNAPSHOT_LIMIT = 1_000;

/** Decoded arguments, or the raw text when they cannot be decoded. */
export function decodeOrRaw(text: string): unknown[] | string {
  try {
    return decodeArgs(text);
  } catch {
    return text;
  }
}

/** What is paused, from the names of the pause set (`*` = the docket). */
export function pausedOf(names: readonly string[]): { docket: boolean; tasks: string[] } {
  return { docket: names.includes('*'), tasks: names.filter((name) => name !== '*').sort() };
}

/**
 * The public read model of a docket: what runs and waits, the live workers, counts, progress,
 * strikes and state events. The CLI, the dashboard, the testing kit and health read through
 * it; it reads Redis alone, so a producer-only process can answer too.
 */
@Injectable()
export class DocketInspector {
  /** @internal Nest injects the engine's parts; applications get this class from Nest. */
  constructor(
    @Inject(DOCKET_OPTIONS) private readonly options: ResolvedDocketOptions,
    @Inject(DOCKET_STORE) private readonly store: DocketStore,
    private readonly strikeSync: StrikeSync,
    private readonly registry: TaskRegistry,
  ) {}

  /** The docket's name. */
  get name(): string {
    return this.options.name;
  }

  /** The options this process runs the docket with. */
  configuration(): DocketConfiguration {
    const { connection: _connection, deadLetterTtl: _deadLetterTtl, ...options } = this.options;
    return {
      ...options,
      url: redactUrl(options.url),
      worker: options.worker && { ...options.worker },
    };
  }

  /** The task name of a name or a decorated method reference. */
  taskName(task: TaskRef): string {
    return this.registry.resolveName(task, false);
  }

  /**
   * What runs and waits now: the counts of each state in full, and lists of at most `limit`
   * running and `limit` waiting tasks (1 000 by default; `Infinity` lists all).
   */
  async snapshot(options: { limit?: number } = {}): Promise<DocketSnapshot> {
    const limit = options.limit ?? SNAPSHOT_LIMIT;
    if (typeof limit !== 'number' || Number.isNaN(limit) || limit < 0) {
      throw new TypeError(`snapshot limit must be a number ≥ 0 or Infinity, got ${String(limit)}`);
    }
    const takenAt = new Date();
    const [record, counts, workers, pausedNames] = await Promise.all([
      this.store.snapshot(
        Number.isFinite(limit) ? Math.max(1, Math.floor(limit)) : Number.MAX_SAFE_INTEGER,
      ),
      this.store.countTasks(),
      this.workers(),
      this.store.pausedNames(),
    ]);
    const paused = pausedOf(pausedNames);
    const isPaused = (task: string) => paused.docket || paused.tasks.includes(task);
    const running: RunningTask[] = [];
    const future: FutureTask[] = [];
    for (const run of record.runs) {
      const base = {
        key: run.key,
        taskName: run.taskName,
        args: decodeOrRaw(run.args),
        when: new Date(run.when),
        attempt: run.attempt,
      };
      if (run.state === 'running') {
        running.push({
          ...base,
          worker: run.worker ?? '',
          startedAt: new Date(run.startedAt ?? NaN),
        });
      } else if (run.waitingFor && run.state === 'scheduled') {
        future.push({ ...base, state: run.state, waitingFor: run.waitingFor });
      } else if (run.state === 'queued' || run.state === 'scheduled') {
        future.push(
          run.state === 'queued' && isPaused(run.taskName)
            ? { ...base, state: run.state, paused: true }
            : { ...base, state: run.state },
        );
      }
    }
    future.sort((a, b) => a.when.getTime() - b.when.getTime());
    return {
      takenAt,
      totalTasks: counts.running + counts.queued + counts.scheduled,
      counts,
      limit,
      running: running.slice(0, limit),
      future: future.slice(0, limit),
      workers,
      paused,
    };
  }

  /**
   * One page of the live executions (running, queued, scheduled) that pass a filter, and how
   * many pass it in all: in the order the docket holds them (what runs and is due, then the
   * scheduled ones by due time). Unfiltered (any states), the lists are counted as `counts()`
   * counts them and only the page is read. A task filter or a search reads the record of every
   * live execution in those states once, in pieces of at most 5 000 (a script call each, so
   * that Redis is never held for the whole docket); the pieces are not one snapshot, so an
   * execution that moves between two of them (starts, comes due) may be missed or met twice in
   * that read.
   */
  async tasks(options: TaskListOptions = {}): Promise<TaskList> {
    const states = statesOf(options.states, LIVE_STATES, 'tasks()');
    const { offset, limit } = pageOf(options);
    const [record, pausedNames] = await Promise.all([
      this.store.listTasks({
        states,
        task: options.task || undefined,
        search: options.search || undefined,
        offset,
        limit,
      }),
      this.store.pausedNames(),
    ]);
    const paused = pausedOf(pausedNames);
    const tasks = record.runs.flatMap((run): ListedTask[] => {
      if (!LIVE_STATES.includes(run.state as LiveState)) return [];
      const task: ListedTask = {
        key: run.key,
        taskName: run.taskName,
        args: decodeOrRaw(run.args),
        when: new Date(run.when),
        attempt: run.attempt,
        state: run.state as LiveState,
      };
      if (run.state === 'running') {
        task.worker = run.worker ?? '';
        task.startedAt = new Date(run.startedAt ?? NaN);
      } else if (run.state === 'queued' && (paused.docket || paused.tasks.includes(run.taskName))) {
        task.paused = true;
      } else if (run.state === 'scheduled' && run.waitingFor) {
        task.waitingFor = run.waitingFor;
      }
      return [task];
    });
    return { total: record.total, offset, tasks };
  }

  /**
   * Keep a history of finished executions (completed, failed, cancelled) for `ttl` ms from now:
   * while it lasts, every end is added to it, the newest `size` (1 to 10 000) kept. Renew it
   * before it lapses to go on (the dashboard does, while it is mounted). A docket nobody keeps
   * a history of pays nothing for it.
   */
  async keepHistory(size: number, ttl = 60_000): Promise<void> {
    if (!Number.isSafeInteger(size) || size < 1 || size > HISTORY_MAX) {
      throw new TypeError(
        `keepHistory(): size is a whole number from 1 to ${HISTORY_MAX}, not ${size}`,
      );
    }
    if (!Number.isSafeInteger(ttl) || ttl < 1) {
      throw new TypeError(`keepHistory(): ttl is a whole number of ms ≥ 1, not ${ttl}`);
    }
    await this.store.keepHistory(size, ttl);
  }

  /**
   * One page of the history of finished executions (see `keepHistory`), newest end first, that
   * passes a filter, and how many pass it in all. An execution whose record Redis no longer
   * holds (after `executionTtl`) is not listed. Reads every kept entry once (in one script).
   */
  async history(options: TaskHistoryOptions = {}): Promise<TaskHistory> {
    const states = statesOf(options.states, FINISHED_STATES, 'history()');
    const { offset, limit } = pageOf(options);
    const record = await this.store.history({
      states,
      task: options.task || undefined,
      search: options.search || undefined,
      searchArguments: options.searchArguments !== false,
      offset,
      limit,
    });
    const tasks = record.runs.flatMap((run): FinishedTask[] => {
      if (!FINISHED_STATES.includes(run.state as FinishedState)) return [];
      const task: FinishedTask = {
        key: run.key,
        taskName: run.taskName,
        args: decodeOrRaw(run.args),
        when: new Date(run.when),
        attempt: run.attempt,
        state: run.state as FinishedState,
        completedAt: new Date(run.completedAt ?? NaN),
      };
      if (run.worker) task.worker = run.worker;
      if (run.startedAt !== undefined) task.startedAt = new Date(run.startedAt);
      if (run.error) task.error = run.error;
      return [task];
    });
    return { total: record.total, offset, tasks };
  }

  /** What is paused: the whole docket, and the tasks paused by name. */
  async paused(): Promise<{ docket: boolean; tasks: string[] }> {
    return pausedOf(await this.store.pausedNames());
  }

  /** How many tasks are running, queued and scheduled now, counted in full. */
  counts(): Promise<TaskCounts> {
    return this.store.countTasks();
  }

  /**
   * Whether this docket has been used on its database: false when none of its lasting keys
   * (stream, queue, strikes, dead letters, worker registry) is there — a name never used, or
   * the wrong database.
   */
  exists(): Promise<boolean> {
    return this.store.hasKeys();
  }

  /**
   * The names of the dockets used on this docket's database, sorted (a scan of its keys: for
   * tools, not for hot paths).
   */
  dockets(): Promise<string[]> {
    return this.store.docketNames();
  }

  /** Workers whose heartbeat is recent, with what each told about itself. */
  async workers(): Promise<LiveWorker[]> {
    return (await this.store.liveWorkers(this.liveSince())).map(workerInfo);
  }

  /** Live workers that run `task`. */
  async taskWorkers(task: string): Promise<LiveWorker[]> {
    return (await this.store.liveWorkers(this.liveSince(), task)).map(workerInfo);
  }

  /**
   * Queue depth, schedule depth, running tasks, live workers and strikes in effect (the strike
   * log is loaded on the first read, and followed from then on).
   */
  async depths(): Promise<DocketDepths> {
    const now = Date.now();
    const [depths] = await Promise.all([
      this.store.depths(now, this.liveSince(now)),
      this.strikeSync.ready(),
    ]);
    return { ...depths, strikes: this.strikeSync.list.size };
  }

  /**
   * Why the execution of `key` is where it is (see `Execution.explain()`), from Redis and the
   * strike list alone: any process can answer, a producer-only one or the CLI too.
   */
  async explain(key: string): Promise<Explanation> {
    const now = Date.now();
    const record = await this.store.explain(key, now, this.liveSince(now), EXPLAIN_AHEAD_CAP);
    if (record.reason !== 'finished' && record.reason !== 'running') {
      const strike = await this.strikeOf(record.taskName, record.args);
      if (strike) return { state: record.state, reason: 'struck', detail: strike };
    }
    const explanation: Explanation = {
      state: record.state,
      reason: record.reason,
      detail: record.detail,
    };
    if (record.since !== undefined) explanation.since = new Date(record.since);
    if (record.until !== undefined) explanation.until = new Date(record.until);
    return explanation;
  }

  /** The strike in effect that blocks task `task` with these encoded arguments, in words. */
  private async strikeOf(task: string, args: string): Promise<string | undefined> {
    await this.strikeSync.ready();
    const list = this.strikeSync.list;
    if (list.size === 0) return undefined;
    const decoded = decodeOrRaw(args);
    if (typeof decoded === 'string') return undefined;
    // as a worker matches it: the task's own parameters when this process knows the task
    const parameters = this.registry.parametersOf(task, task);
    if (!list.matches(task, parameters, decoded)) return undefined;
    return `a strike in effect matches task ${task}${parameters ? ' and its arguments' : ''}: it is cancelled when its turn comes`;
  }

  /** The progress of each key (in order). */
  async progress(keys: readonly string[]): Promise<ExecutionProgress[]> {
    return (await this.store.readProgress(keys)).map(progressOf);
  }

  /** The strikes in effect now, oldest first. */
  async strikes(): Promise<StrikeInEffect[]> {
    await this.strikeSync.ready();
    await this.strikeSync.catchUp();
    return this.strikeSync.list.entries().map(({ id, strike }) => {
      const condition: StrikeCondition = { operator: strike.operator };
      if (strike.task !== null) condition.task = strike.task;
      if (strike.parameter !== null) {
        condition.parameter = strike.parameter;
        condition.value = strike.value;
      }
      return { id, condition };
    });
  }

  /**
   * Every state change of every execution of the docket, as published (best effort, live
   * only; its own connection). Resolves once listening; call the result to stop.
   */
  stateEvents(handler: (event: StateEvent) => void): Promise<() => Promise<void>> {
    return this.store.onAnyState(handler);
  }

  private liveSince(now = Date.now()): number {
    return now - this.options.heartbeatInterval * this.options.missedHeartbeats;
  }
}

function workerInfo({ name, lastSeen, tasks, about }: WorkerRecord): LiveWorker {
  return {
    name,
    lastSeen: new Date(lastSeen),
    tasks,
    host: about.host,
    pid: about.pid,
    startedAt: about.startedAt === null ? null : new Date(about.startedAt),
    version: about.version,
    concurrency: about.concurrency,
  };
}
