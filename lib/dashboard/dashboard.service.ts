import {
  BadRequestException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  type OnModuleInit,
} from '@nestjs/common';
import type { ListedTask, LiveWorker, StrikeCondition, StrikeOperator } from '../public-api.js';
import { isoOrNull } from '../util/dates.js';
import { InvalidValueError, parseTypedValue } from '../util/typed-value.js';
import { DOCKET_DASHBOARD_OPTIONS, RUNNING_LIMIT, SCHEDULED_LIMIT } from './dashboard.constants.js';
import { DashboardDocket } from './dashboard-docket.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import { actionsAllowed } from './dashboard-action.guard.js';
import { DashboardSampler } from './dashboard-sampler.js';
import type {
  ExplanationView,
  FailuresView,
  OverviewView,
  PausedView,
  RunningView,
  ScheduledView,
  StrikeView,
  TaskView,
  WorkerView,
} from './dashboard-views.interface.js';
import { explanationView } from './explanation-view.js';
import { argsView, waitingView } from './row-views.js';
import { strikeCondition, strikeViews } from './strike-log.js';

/** What the dashboard's endpoints read and do, in terms of the public `DocketClient`. */
@Injectable()
export class DashboardService implements OnModuleInit {
  private readonly logger = new Logger('DocketDashboard');

  constructor(
    private readonly docket: DashboardDocket,
    private readonly sampler: DashboardSampler,
    @Inject(DOCKET_DASHBOARD_OPTIONS) readonly options: ResolvedDashboardOptions,
  ) {}

  onModuleInit(): void {
    if (!this.options.readOnly && !this.options.guard) {
      this.logger.warn(
        this.options.allowActionsWithoutGuard
          ? `the dashboard at /${this.options.path} lets anyone who reaches it cancel, retry, ` +
              'strike and pause tasks (allowActionsWithoutGuard): give DocketDashboardModule.forRoot({ guard })'
          : `the dashboard at /${this.options.path} refuses every action: it has no guard ` +
              '(give DocketDashboardModule.forRoot({ guard }), or readOnly: true to hide them)',
      );
    }
  }

  private args(args: unknown[] | string): string | null {
    return argsView(this.options.showArguments, args);
  }

  async overview(since = 0): Promise<OverviewView> {
    const [{ counts, paused }, workers] = await Promise.all([this.sampler.read(), this.workers()]);
    return {
      docket: this.docket.client.name,
      takenAt: new Date().toISOString(),
      readOnly: !actionsAllowed(this.options),
      // the live workers listed below, counted once
      counts: { ...counts, workers: workers.length },
      paused,
      tasks: taskViews(workers, paused),
      sampleInterval: this.options.sampleInterval,
      history: this.options.history,
      throughput: this.options.throughput,
      samples: this.sampler.history(since),
      workers,
    };
  }

  async workers(): Promise<WorkerView[]> {
    return (await this.docket.inspector.workers()).map(workerView);
  }

  /** The running executions, at most RUNNING_LIMIT (a read of their page only). */
  private async runningTasks(): Promise<ListedTask[]> {
    const page = await this.docket.inspector.tasks({ states: ['running'], limit: RUNNING_LIMIT });
    return page.tasks;
  }

  /** The live workers and what each runs now. */
  async workersRunning(): Promise<WorkerView[]> {
    const [workers, running] = await Promise.all([
      this.docket.inspector.workers(),
      this.runningTasks(),
    ]);
    return workers.map((worker) => ({
      ...workerView(worker),
      running: running
        .filter((task) => task.worker === worker.name)
        .map((task) => ({
          key: task.key,
          taskName: task.taskName,
          startedAt: isoOrNull(task.startedAt),
        })),
    }));
  }

  async running(): Promise<RunningView[]> {
    const running = await this.runningTasks();
    if (running.length === 0) return [];
    const progresses = await this.docket.inspector.progress(running.map((task) => task.key));
    return running
      .map((task, i): RunningView => {
        const progress = progresses[i];
        return {
          key: task.key,
          taskName: task.taskName,
          args: this.args(task.args),
          attempt: task.attempt,
          worker: task.worker ?? '',
          when: isoOrNull(task.when),
          startedAt: isoOrNull(task.startedAt),
          progress: { ...progress, updatedAt: isoOrNull(progress.updatedAt) },
        };
      })
      .sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
  }

  /** Queued and scheduled tasks, at most SCHEDULED_LIMIT; `total` counts them all. */
  async scheduled(): Promise<{ total: number; tasks: ScheduledView[] }> {
    const { future, counts } = await this.docket.client.snapshot({ limit: SCHEDULED_LIMIT });
    return {
      total: Math.max(counts.queued + counts.scheduled, future.length),
      tasks: future.map((task) => waitingView(task, this.options.showArguments)),
    };
  }

  async failures(): Promise<FailuresView> {
    const seen = this.sampler.recentFailures();
    const runs = await this.runsOf(seen.map((failure) => failure.key));
    const recent = seen.map((failure, i) => {
      const run = runs[i];
      return {
        key: failure.key,
        taskName: run?.taskName ?? null,
        args: run ? this.args(run.args) : null,
        error: failure.error,
        attempt: run?.attempt ?? null,
        failedAt: new Date(failure.at).toISOString(),
      };
    });
    return { recent };
  }

  /** Task, arguments and attempt of each key while Redis keeps its execution. */
  private async runsOf(
    keys: string[],
  ): Promise<({ taskName: string; args: unknown[]; attempt: number } | null)[]> {
    return Promise.all(
      keys.map(async (key) => {
        const execution = await this.docket.client.getExecution(key).catch(() => null);
        return execution && execution.state === 'failed' ? execution : null;
      }),
    );
  }

  strikes(): Promise<StrikeView[]> {
    return strikeViews(this.docket.inspector);
  }

  /** Why the task of `key` is where it is; 404 when Redis has no record of it. */
  async explain(given: unknown): Promise<ExplanationView> {
    return explanationView(this.docket.inspector, requireKey(given));
  }

  /**
   * Pause (`on`) or resume the docket (no `task`) or one task by name; answers what is paused
   * now.
   */
  async setPaused(body: unknown, on: boolean): Promise<{ paused: PausedView }> {
    const task = pauseTarget(body);
    const { client } = this.docket;
    await (on ? client.pause(task) : client.resume(task)).catch(badRequest);
    return { paused: await this.docket.inspector.paused() };
  }

  async cancel(key: unknown): Promise<{ key: string; state: string | null }> {
    const checked = requireKey(key);
    await this.docket.client.cancel(checked);
    const execution = await this.docket.client.getExecution(checked);
    return { key: checked, state: execution?.state ?? null };
  }

  async retry(body: { key?: unknown; all?: unknown }): Promise<{ retried: number }> {
    const target = body.all === true ? ({ all: true } as const) : requireKey(body.key);
    return { retried: await this.docket.client.retryDeadLetter(target) };
  }

  async strike(body: Record<string, unknown>): Promise<{ strikes: StrikeView[] }> {
    await this.docket.client.strike(conditionFrom(body)).catch(badRequest);
    return { strikes: await this.strikes() };
  }

  async restore(body: Record<string, unknown>): Promise<{ strikes: StrikeView[] }> {
    let condition: StrikeCondition | undefined;
    if (typeof body.id === 'string') {
      condition = await strikeCondition(this.docket.inspector, body.id);
      if (!condition) throw new NotFoundException('that strike is not in effect');
    } else {
      condition = conditionFrom(body);
    }
    await this.docket.client.restore(condition).catch(badRequest);
    return { strikes: await this.strikes() };
  }
}

function workerView(worker: LiveWorker): WorkerView {
  return {
    name: worker.name,
    lastSeen: isoOrNull(worker.lastSeen),
    tasks: worker.tasks,
    host: worker.host,
    pid: worker.pid,
    startedAt: isoOrNull(worker.startedAt),
    version: worker.version,
    concurrency: worker.concurrency,
  };
}

/**
 * The tasks of the live workers and the tasks paused by name, sorted by name. A worker with a
 * fallback task lists `*` (any task): that is no task name, and cannot be paused by name.
 */
function taskViews(workers: WorkerView[], paused: PausedView): TaskView[] {
  const count = new Map<string, number>(paused.tasks.map((name) => [name, 0]));
  for (const worker of workers) {
    for (const name of new Set(worker.tasks)) {
      if (name !== '*') count.set(name, (count.get(name) ?? 0) + 1);
    }
  }
  return [...count.keys()]
    .sort()
    .map((name) => ({ name, workers: count.get(name)!, paused: paused.tasks.includes(name) }));
}

/**
 * The task of a pause or resume: none (the whole docket) when the body has no `task`, else a
 * non-empty name — never the docket by mistake for an empty field.
 */
function pauseTarget(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestException('give a JSON object: {} for the whole docket, or { "task": … }');
  }
  const { task } = body as { task?: unknown };
  if (task === undefined || task === null) return undefined;
  if (typeof task !== 'string' || task.trim() === '') {
    throw new BadRequestException('give a task name as "task", or no "task" for the whole docket');
  }
  return task.trim();
}

/** The key of a request: a non-empty string, else 400. */
export function requireKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new BadRequestException('give the task key as "key"');
  }
  return key;
}

/** A TypeError or a bad typed value as 400; anything else as it is. */
export function badRequest(error: unknown): never {
  if (error instanceof TypeError || error instanceof InvalidValueError) {
    throw new BadRequestException(error.message);
  }
  throw error;
}

function text(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new BadRequestException(`"${name}" must be a string`);
  return value.trim() || undefined;
}

/**
 * A strike condition from a form: `value` is text typed like the CLI's (`int:42`,
 * `float:1.5`, `bool:true`, `date:2026-01-01T00:00:00Z`, `json:[1,2]`; otherwise a string).
 */
function conditionFrom(body: Record<string, unknown>): StrikeCondition {
  const condition: StrikeCondition = {};
  const task = text(body.task, 'task');
  const parameter = text(body.parameter, 'parameter');
  const operator = text(body.operator, 'operator');
  if (task) condition.task = task;
  if (operator) condition.operator = operator as StrikeOperator;
  if (parameter) {
    condition.parameter = parameter;
    const value = typeof body.value === 'string' ? body.value : '';
    try {
      condition.value = parseTypedValue(value);
    } catch (error) {
      badRequest(error);
    }
  }
  return condition;
}
