import type { Execution } from '../execution/execution.js';
import type { TaskArgs, TaskRef } from '../execution/task-args.type.js';
import type { AddOptions } from '../interfaces/execution.interface.js';
import type { DocketMetrics } from '../observability/docket-metrics.js';
import type { DocketTracing } from '../observability/docket-tracing.js';
import type { ScheduleAllResult, ScheduleRequest } from '../store/docket-store.js';
import type { Requests } from './requests.js';
import { newTaskKey } from './task-key.js';

/**
 * Most tasks, and most bytes of encoded arguments, an agenda holds: a scatter is one script
 * call, which Redis runs without serving anyone else (some tens of µs a task), and whose
 * arguments the client passes in one function call (nine per task: far more overflow the
 * stack of the memory:// backend).
 */
const AGENDA_MAX_TASKS = 2_000;
const AGENDA_MAX_BYTES = 32 * 1_048_576;

/** Options of `agenda.add()`: the time is the scatter's to give. */
export type AgendaAddOptions = Pick<
  AddOptions,
  'key' | 'priority' | 'after' | 'onDependencyFailure'
>;

/** Options of `agenda.scatter()`; durations are milliseconds. */
export interface ScatterOptions {
  /** The length of the window the tasks are spread over (> 0). */
  over: number;
  /** The start of the window. @default now */
  start?: Date;
  /** Each task moves by a random amount up to ± this, never out of the window. @default 0 */
  jitter?: number;
}

/** @internal What an agenda uses of the client that made it. */
export interface AgendaPort {
  /** How the client's adds are checked and become requests and executions. */
  requests: Pick<Requests, 'plan' | 'request' | 'blocked' | 'answered'>;
  /** Schedule in one call, all or none (the client's store, with its executionTtl). */
  scheduleAll(requests: ScheduleRequest[]): Promise<ScheduleAllResult>;
  metrics: DocketMetrics;
  tracing: DocketTracing;
}

/** One task of an agenda: its key is fixed when it is added, its time by the scatter. */
interface Entry {
  task: TaskRef;
  args: readonly unknown[];
  request: ScheduleRequest;
}

/**
 * Tasks collected to be scheduled together: `agenda.add(task, { key?, priority?, after? })(...args)`
 * for each, then `scatter({ over, start?, jitter? })` spreads them evenly over a window, all
 * or none. A task's key (a fresh UUIDv7 unless given) is fixed when it is added, so a second
 * scatter of the same agenda finds its tasks `already_scheduled` while they are live.
 */
export class Agenda {
  private readonly entries: Entry[] = [];
  private readonly keys = new Set<string>();
  private bytes = 0;

  /** @internal Made by `DocketClient.agenda()`. */
  constructor(private readonly port: AgendaPort) {}

  /** How many tasks the agenda holds. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * Collect `task` with these arguments (typed from the handler for a method reference); the
   * task, the options and then the arguments are checked at once, as `add` checks them. A key
   * the agenda already holds is a TypeError, and so is a task past the 2 000th or past 32 MiB
   * of arguments (a scatter is one atomic call: use several agendas for more).
   */
  add<F extends (...args: any[]) => unknown>(
    task: F,
    options?: AgendaAddOptions,
  ): (...args: TaskArgs<F>) => Agenda;
  add(task: string, options?: AgendaAddOptions): (...args: unknown[]) => Agenda;
  add(task: TaskRef, options: AgendaAddOptions = {}): (...args: any[]) => Agenda {
    const timed = options as AddOptions;
    if (timed.when !== undefined || timed.delay !== undefined) {
      throw new TypeError(
        'agenda.add: scatter() gives the time; "when" and "delay" are not options here',
      );
    }
    const plan = this.port.requests.plan(task, timed, 'agenda.add');
    return (...args: unknown[]) => {
      const key = options.key ?? newTaskKey();
      if (this.keys.has(key))
        throw new TypeError(`agenda.add: the agenda already holds key ${key}`);
      // the scatter gives the time
      const { request, bytes } = this.port.requests.request(plan, args, key, 0, 'add');
      if (this.entries.length >= AGENDA_MAX_TASKS) {
        throw new TypeError(
          `agenda.add: an agenda holds at most ${AGENDA_MAX_TASKS} tasks (its scatter is one atomic call); use several agendas`,
        );
      }
      if (this.bytes + bytes > AGENDA_MAX_BYTES) {
        throw new TypeError(
          `agenda.add: the arguments of an agenda take at most ${AGENDA_MAX_BYTES} bytes (its scatter is one atomic call); use several agendas`,
        );
      }
      this.bytes += bytes;
      this.keys.add(key);
      this.entries.push({ task, args, request });
      return this;
    };
  }

  /**
   * Schedule every task of the agenda, task i of n at `start + i × over / n`, moved by a random
   * amount up to ± `jitter` but kept in `[start, start + over)`; resolves with the executions in
   * the order the tasks were added (`[]` for an empty agenda). All or none: when one task
   * cannot be scheduled (a strike blocks it, a record of its key cannot be read) nothing is
   * and the promise rejects with an error naming it. A key that is live answers
   * `already_scheduled`, as with `add`. Bad options throw a TypeError at the call.
   */
  scatter(options: ScatterOptions): Promise<Execution[]> {
    const { start, over, jitter } = scatterWindow(options);
    const entries = [...this.entries];
    if (entries.length === 0) return Promise.resolve([]);
    const last = start + Math.ceil(over) - 1;
    const requests = entries.map((entry, i): ScheduleRequest => {
      const offset = jitter > 0 ? (Math.random() * 2 - 1) * jitter : 0;
      const when = Math.min(
        last,
        Math.max(start, Math.floor(start + (i * over) / entries.length + offset)),
      );
      return { ...entry.request, when };
    });
    return this.send(entries, requests, start, over);
  }

  private async send(
    entries: Entry[],
    requests: ScheduleRequest[],
    start: number,
    over: number,
  ): Promise<Execution[]> {
    const { port } = this;
    const n = entries.length;
    for (const [i, entry] of entries.entries()) {
      if (await port.requests.blocked(entry.task, requests[i], entry.args)) {
        throw new Error(
          `agenda.scatter: a strike blocks task "${entry.request.taskName}" (key ${entry.request.key}, task ${i + 1} of ${n}); nothing was scheduled`,
        );
      }
    }
    const attributes = { 'docket.count': n, 'docket.when': start, 'docket.over': over };
    const outcome = await port.tracing.produce('docket.scatter', attributes, (trace) => {
      for (const request of requests) Object.assign(request, trace);
      for (const { taskName } of requests) port.metrics.count('added', { task: taskName });
      return port.scheduleAll(requests);
    });
    if (!outcome.written) {
      const which =
        outcome.index === undefined
          ? ''
          : `key ${requests[outcome.index].key} (task ${outcome.index + 1} of ${n}) cannot be scheduled: `;
      throw new Error(`agenda.scatter: nothing was scheduled: ${which}${outcome.error}`);
    }
    return outcome.results.map((result, i) =>
      port.requests.answered(requests[i], entries[i].args, result),
    );
  }
}

/** The window of a scatter in epoch ms; a TypeError naming a bad option. */
function scatterWindow(options: ScatterOptions): { start: number; over: number; jitter: number } {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('agenda.scatter({ over, start?, jitter? }): the options are an object');
  }
  const { over, jitter = 0 } = options;
  if (typeof over !== 'number' || !Number.isFinite(over) || over <= 0) {
    throw new TypeError(
      `agenda.scatter: "over" must be a finite number of ms > 0, not ${String(over)}`,
    );
  }
  if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0) {
    throw new TypeError(
      `agenda.scatter: "jitter" must be a finite number of ms ≥ 0, not ${String(jitter)}`,
    );
  }
  const { start } = options;
  const ms = start === undefined ? Date.now() : start instanceof Date ? start.getTime() : NaN;
  if (!Number.isFinite(ms)) throw new TypeError('agenda.scatter: "start" must be a valid Date');
  if (!Number.isFinite(new Date(ms + over).getTime())) {
    throw new TypeError('agenda.scatter: the window ends past the last time a Date can hold');
  }
  return { start: ms, over, jitter };
}
