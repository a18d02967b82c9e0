import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import type { Execution, ExecutionState } from '../public-api.js';
import { isoOrNull } from '../util/dates.js';
import { unknownTask } from '../util/unknown-task.js';
import { actionsAllowed } from './dashboard-action.guard.js';
import { DashboardDocket } from './dashboard-docket.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import type { DeadLetterDetailView, TaskDetailView } from './dashboard-views.interface.js';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import { badRequest, requireKey } from './dashboard.service.js';
import { explanationView } from './explanation-view.js';
import { formatValue } from './format-value.js';
import { attemptViews, timelineOf } from './timeline.js';

/** A date and time with its zone: `2030-01-31T09:00Z`, `…T09:00:00.000+01:00`. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The time of a replace-at: epoch ms (a whole number ≥ 0, or its digits) or an ISO 8601 date
 * and time with its zone; 400 naming the problem otherwise.
 */
function dateOf(at: unknown): Date {
  const given = typeof at === 'string' ? at.trim() : at;
  let when: Date | undefined;
  if (typeof given === 'number' && Number.isSafeInteger(given) && given >= 0) {
    when = new Date(given);
  } else if (typeof given === 'string' && /^\d{1,16}$/.test(given)) {
    when = new Date(Number(given));
  } else if (typeof given === 'string' && ISO_8601.test(given)) {
    when = new Date(given);
  }
  if (!when || !Number.isFinite(when.getTime())) {
    const shown = typeof at === 'string' ? JSON.stringify(at.slice(0, 64)) : String(at);
    throw new BadRequestException(
      `at must be a date (ISO 8601 with its zone, or epoch ms), not ${shown}`,
    );
  }
  return when;
}

/** One execution in full (the detail page) and the actions on it, through the public API. */
@Injectable()
export class DashboardTaskService {
  constructor(
    private readonly docket: DashboardDocket,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  private async execution(given: unknown): Promise<Execution> {
    const key = requireKey(given);
    const execution = await this.docket.client.getExecution(key).catch(badRequest);
    if (!execution) throw new NotFoundException(unknownTask(key));
    return execution;
  }

  /** The execution of `key`, which must be in `state` (409 when it is not). */
  private async executionIn(given: unknown, state: ExecutionState): Promise<Execution> {
    const execution = await this.execution(given);
    if (execution.state !== state) {
      throw new ConflictException(`task ${execution.key} is ${execution.state}, not ${state}`);
    }
    return execution;
  }

  /**
   * Replace the execution by the same task and arguments under its key, due `when`; 409 for
   * one that waits for its dependencies (a replace would drop its `after`).
   */
  private replaceNow(
    { key, taskName, args, after }: Execution,
    when = new Date(),
  ): Promise<Execution> {
    if (after?.length) {
      throw new ConflictException(
        `task ${key} waits for its dependencies (${after.join(', ')}): it runs once they have ended`,
      );
    }
    return this.docket.client
      .replace(taskName, { key, when })(...args)
      .catch(badRequest);
  }

  /** What the docket keeps of the execution of `key`; 404 when Redis has no record of it. */
  async detail(given: unknown): Promise<TaskDetailView> {
    const execution = await this.execution(given);
    const { key, state } = execution;
    const show = this.options.showArguments;
    const [explanation, paused, result, deadLetter] = await Promise.all([
      explanationView(this.docket.inspector, key),
      this.docket.inspector.paused(),
      show && state === 'completed' ? this.result(execution) : null,
      state === 'failed' ? this.deadLetter(key) : null,
    ]);
    const can = actionsAllowed(this.options);
    // waiting for its dependencies: a replace would drop them (see replaceNow)
    const waits = state === 'scheduled' && (execution.after?.length ?? 0) > 0;
    const { progress } = execution;
    return {
      key,
      taskName: execution.taskName,
      state,
      paused: paused.docket || paused.tasks.includes(execution.taskName),
      attempt: execution.attempt,
      when: isoOrNull(execution.when),
      worker: execution.worker ?? null,
      startedAt: isoOrNull(execution.startedAt),
      completedAt: isoOrNull(execution.completedAt),
      args: show ? execution.args.map(formatValue) : null,
      result,
      error: execution.error ?? null,
      errorStack: execution.errorStack ?? null,
      attempts: attemptViews(execution),
      timeline: timelineOf(execution),
      deadLetter,
      progress: { ...progress, updatedAt: isoOrNull(progress.updatedAt) },
      explanation,
      actions: {
        cancel: can && (state === 'scheduled' || state === 'queued' || state === 'running'),
        runNow: can && state === 'scheduled' && !waits,
        replaceAt: can && (state === 'scheduled' || state === 'queued') && !waits,
        retry: can && state === 'failed',
      },
    };
  }

  private async result(execution: Execution): Promise<string | null> {
    try {
      return formatValue(await execution.result({ timeout: 0 }));
    } catch {
      return null; // expired between the two reads
    }
  }

  private async deadLetter(key: string): Promise<DeadLetterDetailView | null> {
    const letter = await this.docket.deadLetters.newestOf(key);
    return letter
      ? {
          error: letter.error,
          errorStack: letter.errorStack ?? null,
          attempt: letter.attempt,
          deadAt: isoOrNull(letter.deadAt),
        }
      : null;
  }

  /**
   * Run a scheduled task now: replace it by the same task and arguments, due now (409 when it
   * is no longer scheduled).
   */
  async runNow(given: unknown): Promise<{ key: string; state: string }> {
    const execution = await this.executionIn(given, 'scheduled');
    const replaced = await this.replaceNow(execution);
    return { key: execution.key, state: replaced.state };
  }

  /**
   * Move a task that waits (scheduled or queued) to another time: replace it by the same task
   * and arguments, due `at` (an ISO 8601 date or epoch ms; 400 when it is not one, 409 when
   * the task no longer waits).
   */
  async replaceAt(
    given: unknown,
    at: unknown,
  ): Promise<{ key: string; state: string; when: string }> {
    const when = dateOf(at);
    const execution = await this.execution(given);
    if (execution.state !== 'scheduled' && execution.state !== 'queued') {
      throw new ConflictException(
        `task ${execution.key} is ${execution.state}, not scheduled or queued`,
      );
    }
    const replaced = await this.replaceNow(execution, when);
    return { key: execution.key, state: replaced.state, when: when.toISOString() };
  }

  /**
   * Run a failed execution again: its dead letter is retried when there is one (as `Retry` on
   * the failures page), else the same task and arguments are scheduled now under its key.
   */
  async retry(given: unknown): Promise<{ key: string; retried: number }> {
    const execution = await this.executionIn(given, 'failed');
    const { key } = execution;
    let retried = await this.docket.client.retryDeadLetter(key);
    if (retried === 0) {
      await this.replaceNow(execution);
      retried = 1;
    }
    return { key, retried };
  }
}
