import { Logger } from '@nestjs/common';
import { nextRun } from '../behaviours/perpetual.js';
import { attemptsOf, retryDelay } from '../behaviours/retry.js';
import { Deadline } from '../behaviours/timeout.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { TimeoutError } from '../errors/timeout.error.js';
import { encodeArgs, encodeResult } from '../execution/codec.js';
import { describeError, stackOf } from '../execution/events.js';
import { Execution } from '../execution/execution.js';
import type { TaskDefinition } from '../explorer/task-definition.js';
import type { DocketMetrics, TaskLabels } from '../observability/docket-metrics.js';
import type { DocketTracing } from '../observability/docket-tracing.js';
import type { DocketClient } from '../producer/docket.client.js';
import type { DocketStore, EndStatus, TaskEnd } from '../store/docket-store.js';
import { ForcedRetry } from './forced-retry.js';
import { endOf } from './message.js';
import type { RunningTask } from './running-tasks.js';
import { createTaskContext } from './task-context.js';

const logger = new Logger('Docket');

function ms(n: number): string {
  return `${Math.round(n)}ms`;
}

/** How a handler ended, before it is written: the end, and what it threw (for spans and logs). */
export interface Outcome {
  end: TaskEnd;
  thrown?: unknown;
}

/** What running a task needs from the worker. */
export interface TaskRunnerEnv {
  worker: string;
  executionTtl: number;
  maxPayloadBytes: number;
  store: DocketStore;
  client: DocketClient;
  metrics: DocketMetrics;
  tracing: DocketTracing;
}

/** Runs one claimed message's handler to its end and says how it ended. */
export class TaskRunner {
  constructor(private readonly env: TaskRunnerEnv) {}

  /** Where executions' CONSUMER spans are made (a batch makes one per item too). */
  get tracing(): DocketTracing {
    return this.env.tracing;
  }

  /**
   * Run the task; null when it was abandoned at shutdown (its message stays pending for
   * redelivery). `mayContinue` is false when `runAtMost` allows no further run of the key.
   */
  async run(
    definition: TaskDefinition,
    task: RunningTask,
    mayContinue: boolean,
  ): Promise<TaskEnd | null> {
    const { message } = task;
    const { metrics, tracing, worker } = this.env;
    const labels: TaskLabels = { task: message.taskName, worker };
    metrics.running(labels, 1);
    const attributes = {
      'docket.key': message.key,
      'docket.attempt': message.attempt,
      'docket.worker': worker,
      'docket.when': message.when,
    };
    try {
      return await tracing.consume(message.taskName, message, attributes, async (span) => {
        const outcome = await this.execute(definition, task);
        if (!outcome) {
          span.end();
          return null;
        }
        const { end } = outcome;
        if (end.outcome === 'retry' || end.outcome === 'dead') span.fail(outcome.thrown);
        if (end.outcome === 'completed' || end.outcome === 'dead') {
          this.chain(definition, task, mayContinue, end);
          if (end.nextWhen !== undefined) metrics.count('perpetuated', labels);
        }
        span.end();
        return end;
      });
    } finally {
      metrics.running(labels, -1);
    }
  }

  /**
   * Count how a task ended, once its end is written: a cancel recorded before the end makes it
   * 'cancelled' whatever the handler did; an end whose records were unreadable failed.
   */
  counted(task: RunningTask, end: TaskEnd, status: EndStatus | undefined): void {
    const { metrics, worker } = this.env;
    const labels: TaskLabels = { task: task.message.taskName, worker };
    const outcome =
      status === 'cancelled' ? 'cancelled' : status === 'error' ? 'dead' : end.outcome;
    metrics.count('completed', labels);
    metrics.duration(labels, (Date.now() - task.startedAt) / 1_000);
    if (outcome === 'completed') metrics.count('succeeded', labels);
    if (outcome === 'cancelled') metrics.count('cancelled', labels);
    if (outcome === 'retry' || outcome === 'dead') metrics.count('failed', labels);
    if (outcome === 'retry') metrics.count('retried', labels);
  }

  /** A perpetual or cron task's successor, written with its end. */
  private chain(
    definition: TaskDefinition,
    task: RunningTask,
    mayContinue: boolean,
    end: TaskEnd,
  ): void {
    const intent = task.perpetual;
    if (intent.cancelled || task.cancelRequested || !mayContinue) return;
    try {
      const when = nextRun(definition.plan, intent, task.startedAt, Date.now());
      if (when === undefined) return;
      end.nextWhen = when;
      end.nextArgs = intent.args ? encodeArgs(intent.args) : '';
      logger.log(
        `↻ ${task.message.taskName}(${task.message.key}) next at ${new Date(when).toISOString()}`,
      );
    } catch (error) {
      end.nextWhen = undefined;
      logger.error(
        `${task.message.taskName}(${task.message.key}): its chain ends: ${(error as Error).message}`,
      );
    }
  }

  private async execute(definition: TaskDefinition, task: RunningTask): Promise<Outcome | null> {
    const { message } = task;
    const { options } = definition;
    const attempts = attemptsOf(options.retry);
    // built only for a line that is logged (the hot path of plain tasks logs nothing)
    const label = () => `${message.taskName}(${message.key}) attempt ${message.attempt}`;
    const logging = Logger.isLevelEnabled('log');
    if (logging) {
      const again = message.redelivered ? ' (redelivered: its worker stopped renewing it)' : '';
      logger.log(`↪ ${label()} started, ${ms(task.startedAt - message.when)} after due${again}`);
    }

    // The context is built only for a handler that asks for it (the hot path of plain tasks).
    let rearm = (): void => undefined;
    const deadline =
      options.timeout !== undefined || definition.ctxIndex >= 0
        ? new Deadline(options.timeout, () => rearm())
        : undefined;
    const callArgs = [...message.args];
    if (definition.ctxIndex >= 0) {
      const ctx = createTaskContext({
        store: this.env.store,
        client: this.env.client,
        message,
        execution: () => this.executionOf(task),
        worker: this.env.worker,
        signal: task.controller.signal,
        attempts,
        deadline: deadline!,
        perpetual: task.perpetual,
      });
      while (callArgs.length < definition.ctxIndex) callArgs.push(undefined);
      callArgs.splice(definition.ctxIndex, 0, ctx);
    }

    let timer: NodeJS.Timeout | undefined;
    let timedOut: Promise<never> | undefined;
    if (options.timeout !== undefined) {
      timedOut = new Promise<never>((_, reject) => {
        rearm = () => {
          clearTimeout(timer);
          timer = setTimeout(() => {
            const error = new TimeoutError(
              `task ${message.key} exceeded timeout of ${options.timeout}ms`,
            );
            task.controller.abort(error);
            reject(error);
          }, deadline!.remaining());
        };
      });
      timedOut.catch(() => undefined);
      rearm();
    }

    try {
      const running = (async () => definition.method.apply(definition.instance, callArgs))();
      const value = timedOut ? await Promise.race([running, timedOut]) : await running;
      if (task.abandoned) return null;
      const end = this.completion(task, value);
      if (logging) logger.log(`↩ ${label()} completed in ${ms(Date.now() - task.startedAt)}`);
      return { end };
    } catch (error) {
      if (task.abandoned) return null;
      return this.failure(definition, task, error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The end of a handler that returned `value`; throws when the result is too large. */
  completion(task: RunningTask, value: unknown): TaskEnd {
    const { message } = task;
    let result: string | undefined;
    if (value !== undefined && this.env.executionTtl > 0) {
      result = encodeResult(value);
      const size = Buffer.byteLength(result);
      if (size > this.env.maxPayloadBytes) {
        throw new PayloadTooLargeError(
          `result of task "${message.taskName}" (key ${message.key}) is ${size} bytes serialized; maxPayloadBytes is ${this.env.maxPayloadBytes}`,
        );
      }
    }
    const end = endOf(message, 'completed', task.admission);
    if (result !== undefined) end.result = result;
    return end;
  }

  /**
   * The end of an attempt that threw `error`: cancelled when a cancel reached it, else a retry
   * by the task's policy while attempts are left, else dead.
   */
  failure(definition: TaskDefinition, task: RunningTask, error: unknown): Outcome {
    const { message } = task;
    const label = `${message.taskName}(${message.key}) attempt ${message.attempt}`;
    const took = ms(Date.now() - task.startedAt);
    if (task.cancelRequested) {
      logger.log(`✗ ${label} cancelled after ${took}`);
      return { end: endOf(message, 'cancelled', task.admission) };
    }
    const { retry } = definition.options;
    const attempts = attemptsOf(retry);
    if (message.attempt < attempts) {
      const when =
        error instanceof ForcedRetry ? error.when : Date.now() + retryDelay(retry, message.attempt);
      logger.warn(
        `↫ ${label} failed after ${took} (${describeError(error)}); retry at ${new Date(when).toISOString()}`,
      );
      const end = endOf(message, 'retry', task.admission);
      end.retryWhen = when;
      end.attempt = message.attempt + 1;
      end.error = describeError(error);
      // a retry asked for by the handler has no stack worth keeping
      if (!(error instanceof ForcedRetry)) end.stack = stackOf(error);
      return { end, thrown: error };
    }
    const failure =
      error instanceof ForcedRetry
        ? new Error(`a retry was requested but all ${attempts} attempt(s) are used`)
        : error;
    logger.error(
      `↩ ${label} failed after ${took}: ${describeError(failure)}`,
      (failure as Error)?.stack,
    );
    const end = endOf(message, 'dead', task.admission);
    end.error = describeError(failure);
    end.stack = stackOf(failure);
    return { end, thrown: failure };
  }

  /** The `Execution` a handler sees as `ctx.execution`. */
  private executionOf(task: RunningTask): Execution {
    const { message } = task;
    const execution = new Execution(this.env.client.executionSource, {
      key: message.key,
      taskName: message.taskName,
      args: message.args,
      when: new Date(message.when),
      attempt: message.attempt,
      disposition: 'scheduled',
      state: 'running',
      generation: Number(message.generation),
    });
    execution.worker = this.env.worker;
    execution.startedAt = new Date(task.startedAt);
    return execution;
  }
}
