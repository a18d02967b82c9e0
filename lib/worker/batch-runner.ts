import { Logger } from '@nestjs/common';
import { TimeoutError } from '../errors/timeout.error.js';
import { describeError } from '../execution/events.js';
import type { TaskDefinition } from '../explorer/task-definition.js';
import type { BatchItem, TaskBatch } from '../interfaces/task-batch.interface.js';
import type { DocketMetrics, TaskLabels } from '../observability/docket-metrics.js';
import type { TaskEnd } from '../store/docket-store.js';
import type { RunningTask } from './running-tasks.js';
import type { Outcome, TaskRunner } from './task-runner.js';

const logger = new Logger('Docket');

/** What a batch handler returned that is neither nothing nor one result per item. */
function wrongReturn(definition: TaskDefinition, value: unknown, count: number): TypeError {
  const got = Array.isArray(value) ? `${value.length} result(s)` : `a ${typeof value}`;
  return new TypeError(
    `the batch handler of task "${definition.name}" returned ${got} for ${count} item(s); it returns nothing or an array with one result per item, in item order`,
  );
}

/**
 * Runs a batch task's handler once for the executions of one batch and gives each its own
 * end: completed with its result, or failed (by `batch.fail`, or because the handler threw,
 * timed out or returned the wrong thing) and retried by its task's policy.
 */
export class BatchRunner {
  constructor(
    private readonly runner: TaskRunner,
    private readonly metrics: DocketMetrics,
    private readonly worker: string,
  ) {}

  /** The ends in the order of `tasks`; null for each when shutdown gave up on the batch. */
  async run(
    definition: TaskDefinition,
    tasks: readonly RunningTask[],
  ): Promise<(TaskEnd | null)[]> {
    const labels: TaskLabels = { task: definition.name, worker: this.worker };
    this.metrics.running(labels, tasks.length);
    try {
      // Without a tracer no item has a span: no chain of one wrapper per item around the call.
      const outcomes = this.runner.tracing.active
        ? await this.traced(tasks, 0, () => this.outcomes(definition, tasks))
        : await this.outcomes(definition, tasks);
      return outcomes.map((outcome) => outcome?.end ?? null);
    } finally {
      this.metrics.running(labels, -tasks.length);
    }
  }

  /**
   * Run `body` inside the CONSUMER span of each item from `i` on (each a root linked to its
   * producer, as a single execution's is); an item's span fails when the item does.
   */
  private traced(
    tasks: readonly RunningTask[],
    i: number,
    body: () => Promise<(Outcome | null)[]>,
  ): Promise<(Outcome | null)[]> {
    if (i === tasks.length) return body();
    const { message } = tasks[i];
    const attributes = {
      'docket.key': message.key,
      'docket.attempt': message.attempt,
      'docket.worker': this.worker,
      'docket.when': message.when,
      'docket.batch.size': tasks.length,
    };
    return this.runner.tracing.consume(message.taskName, message, attributes, async (span) => {
      try {
        const outcomes = await this.traced(tasks, i + 1, body);
        const outcome = outcomes[i];
        if (outcome && (outcome.end.outcome === 'retry' || outcome.end.outcome === 'dead')) {
          span.fail(outcome.thrown);
        }
        return outcomes;
      } finally {
        span.end();
      }
    });
  }

  private async outcomes(
    definition: TaskDefinition,
    tasks: readonly RunningTask[],
  ): Promise<(Outcome | null)[]> {
    const controller = new AbortController();
    // shutdown gives up on every task at once: the batch hears it through its signal
    const abandon = (reason: unknown) => controller.abort(reason);
    for (const task of tasks) task.onAbandon = abandon;
    const items: BatchItem[] = tasks.map(({ message: m }) =>
      Object.freeze({ key: m.key, args: m.args, attempt: m.attempt }),
    );
    const failed = new Map<BatchItem, unknown>();
    const batch = Object.freeze(
      Object.assign([...items], {
        signal: controller.signal,
        fail: (item: BatchItem, error: unknown): void => {
          if (!items.includes(item)) {
            throw new TypeError(`batch.fail(): the item given is not one of this batch's items`);
          }
          if (!failed.has(item)) failed.set(item, error);
        },
      }),
    ) as TaskBatch;

    const started = Date.now();
    const name = `${definition.name} batch of ${tasks.length}`;
    if (Logger.isLevelEnabled('log')) logger.log(`↪ ${name} started`);
    const { timeout } = definition.options;
    let timer: NodeJS.Timeout | undefined;
    let threw = false;
    let thrown: unknown;
    let results: readonly unknown[] | undefined;
    try {
      const running = (async () => definition.method.call(definition.instance, batch))();
      let value: unknown;
      if (timeout === undefined) value = await running;
      else {
        running.catch(() => undefined);
        value = await Promise.race([
          running,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              const error = new TimeoutError(`${name} exceeded timeout of ${timeout}ms`);
              controller.abort(error);
              reject(error);
            }, timeout);
          }),
        ]);
      }
      if (Array.isArray(value) && value.length === tasks.length) results = value;
      else if (value !== undefined) throw wrongReturn(definition, value, tasks.length);
    } catch (error) {
      threw = true;
      thrown = error;
    } finally {
      clearTimeout(timer);
    }
    if (tasks.some((task) => task.abandoned)) return tasks.map(() => null);
    if (threw) {
      logger.warn(`${name} failed after ${Date.now() - started}ms: ${describeError(thrown)}`);
    } else if (Logger.isLevelEnabled('log')) {
      logger.log(`↩ ${name} ended in ${Date.now() - started}ms (${failed.size} failed)`);
    }
    return tasks.map((task, i) => {
      const item = items[i];
      if (failed.has(item)) return this.runner.failure(definition, task, failed.get(item));
      if (threw) return this.runner.failure(definition, task, thrown);
      try {
        return { end: this.runner.completion(task, results?.[i]) };
      } catch (error) {
        return this.runner.failure(definition, task, error);
      }
    });
  }
}
