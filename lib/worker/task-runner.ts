import { Logger } from '@nestjs/common';
import { attemptsOf, retryDelay } from '../behaviours/retry.js';
import type { DocketClient } from '../producer/docket.client.js';
import type { DocketRuntime } from '../docket.runtime.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { TimeoutError } from '../errors/timeout.error.js';
import { encodeArgs, encodeResult } from '../execution/codec.js';
import { describeError } from '../execution/events.js';
import { Execution } from '../execution/execution.js';
import type { TaskDefinition } from '../explorer/task-definition.js';
import type { Finish } from './finisher.js';
import { ForcedRetry } from './forced-retry.js';
import type { TaskMessage } from './message.js';
import { Deadline, createTaskContext, type PerpetualIntent } from './task-context.js';

/** A task this worker holds. */
export class RunningTask {
  readonly controller = new AbortController();
  /** `cancel(key)` reached this worker while the task ran. */
  cancelRequested = false;
  /** Shutdown gave up on it: its end is not recorded, redelivery takes over. */
  abandoned = false;
  readonly perpetual: PerpetualIntent = { cancelled: false };
  constructor(
    readonly message: TaskMessage,
    readonly startedAt: number,
    /** Admission rules it was claimed with ('' = none). */
    readonly admission: string,
  ) {}
}

const logger = new Logger('Docket');

function ms(n: number): string {
  return `${Math.round(n)}ms`;
}

/**
 * Run one claimed message to its end and say how it ended; null when the task was abandoned at
 * shutdown (its message stays pending for redelivery).
 */
export async function runTask(env: {
  runtime: DocketRuntime;
  client: DocketClient;
  worker: string;
  definition: TaskDefinition;
  task: RunningTask;
  /** False when `runAtMost` allows no further run of this key. */
  mayContinue: boolean;
}): Promise<Finish | null> {
  const { runtime, task } = env;
  const { message } = task;
  const labels = { task: message.taskName, worker: env.worker };
  const { metrics, tracing } = runtime;
  metrics.running(labels, 1);
  const attributes = {
    'docket.key': message.key,
    'docket.attempt': message.attempt,
    'docket.worker': env.worker,
    'docket.when': message.when,
  };
  try {
    return await tracing.consume(message.taskName, message, attributes, async (span) => {
      const finish = await execute(env);
      if (!finish) {
        span.end();
        return null;
      }
      metrics.count('completed', labels);
      metrics.duration(labels, (Date.now() - task.startedAt) / 1_000);
      if (finish.outcome === 'completed') metrics.count('succeeded', labels);
      if (finish.outcome === 'cancelled') metrics.count('cancelled', labels);
      if (finish.outcome === 'retry' || finish.outcome === 'dead') {
        metrics.count('failed', labels);
        span.fail(finish.thrown);
      }
      if (finish.outcome === 'retry') metrics.count('retried', labels);
      finish.admission = task.admission;
      if (finish.outcome === 'completed' || finish.outcome === 'dead') {
        try {
          Object.assign(finish, successor(env.definition, task, env.mayContinue));
        } catch (error) {
          logger.error(
            `${message.taskName}(${message.key}): its chain ends: ${(error as Error).message}`,
          );
        }
        if (finish.nextWhen !== undefined) metrics.count('perpetuated', labels);
      }
      span.end();
      return finish;
    });
  } finally {
    metrics.running(labels, -1);
  }
}

/** When and with what a perpetual or cron task runs next; {} when its chain ends. */
function successor(
  definition: TaskDefinition,
  task: RunningTask,
  mayContinue: boolean,
): { nextWhen?: number; nextArgs?: string } {
  const { perpetual, cron } = definition.plan;
  const intent = task.perpetual;
  if ((!perpetual && !cron) || intent.cancelled || task.cancelRequested || !mayContinue) return {};
  const now = Date.now();
  let nextWhen: number;
  if (intent.at !== undefined) nextWhen = intent.at;
  else if (intent.after !== undefined) nextWhen = now + intent.after;
  else if (cron) nextWhen = cron.schedule.next(now);
  else nextWhen = Math.max(now, task.startedAt + perpetual!.every);
  const nextArgs = intent.args ? encodeArgs(intent.args) : '';
  logger.log(
    `↻ ${task.message.taskName}(${task.message.key}) next at ${new Date(nextWhen).toISOString()}`,
  );
  return { nextWhen, nextArgs };
}

async function execute(env: {
  runtime: DocketRuntime;
  client: DocketClient;
  worker: string;
  definition: TaskDefinition;
  task: RunningTask;
}): Promise<Finish | null> {
  const { runtime, definition, task } = env;
  const { message } = task;
  const { options } = definition;
  const attempts = attemptsOf(options.retry);
  // built only for a line that is logged (the hot path of plain tasks logs nothing)
  const label = () => `${message.taskName}(${message.key}) attempt ${message.attempt}`;
  const logging = Logger.isLevelEnabled('log');
  if (logging) logger.log(`↪ ${label()} started, ${ms(task.startedAt - message.when)} after due`);

  // The context is built only for a handler that asks for it (the hot path of plain tasks).
  let rearm = (): void => undefined;
  const deadline =
    options.timeout !== undefined || definition.ctxIndex >= 0
      ? new Deadline(options.timeout, () => rearm())
      : undefined;
  const callArgs = [...message.args];
  if (definition.ctxIndex >= 0) {
    const ctx = createTaskContext({
      runtime,
      client: env.client,
      message,
      execution: () => {
        const execution = new Execution(runtime, {
          key: message.key,
          taskName: message.taskName,
          args: message.args,
          when: new Date(message.when),
          attempt: message.attempt,
          disposition: 'scheduled',
          state: 'running',
          generation: Number(message.generation),
        });
        execution.worker = env.worker;
        execution.startedAt = new Date(task.startedAt);
        return execution;
      },
      worker: env.worker,
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

  const base = {
    key: message.key,
    generation: message.generation,
    id: message.id,
    attempt: message.attempt,
    taskName: message.taskName,
    rawArgs: message.rawArgs,
  };
  try {
    const running = (async () => definition.method.apply(definition.instance, callArgs))();
    const value = timedOut ? await Promise.race([running, timedOut]) : await running;
    if (task.abandoned) return null;
    let result: string | undefined;
    if (value !== undefined && runtime.options.executionTtl > 0) {
      result = encodeResult(value);
      const size = Buffer.byteLength(result);
      if (size > runtime.options.maxPayloadBytes) {
        throw new PayloadTooLargeError(
          `result of task "${message.taskName}" (key ${message.key}) is ${size} bytes serialized; maxPayloadBytes is ${runtime.options.maxPayloadBytes}`,
        );
      }
    }
    if (logging) logger.log(`↩ ${label()} completed in ${ms(Date.now() - task.startedAt)}`);
    return { ...base, outcome: 'completed', result };
  } catch (error) {
    if (task.abandoned) return null;
    const took = ms(Date.now() - task.startedAt);
    if (task.cancelRequested) {
      logger.log(`✗ ${label()} cancelled after ${took}`);
      return { ...base, outcome: 'cancelled' };
    }
    if (message.attempt < attempts) {
      const when =
        error instanceof ForcedRetry
          ? error.when
          : Date.now() + retryDelay(options.retry, message.attempt);
      logger.warn(
        `↫ ${label()} failed after ${took} (${describeError(error)}); retry at ${new Date(when).toISOString()}`,
      );
      return {
        ...base,
        outcome: 'retry',
        retryWhen: when,
        attempt: message.attempt + 1,
        thrown: error,
      };
    }
    const failure =
      error instanceof ForcedRetry
        ? new Error(`a retry was requested but all ${attempts} attempt(s) are used`)
        : error;
    logger.error(
      `↩ ${label()} failed after ${took}: ${describeError(failure)}`,
      (failure as Error)?.stack,
    );
    return { ...base, outcome: 'dead', error: describeError(failure), thrown: failure };
  } finally {
    clearTimeout(timer);
  }
}
