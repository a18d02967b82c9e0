import type { TaskBatch } from '../interfaces/task-batch.interface.js';
import type { TaskContext } from '../interfaces/task-context.interface.js';

/**
 * A handler's parameters without a trailing `TaskContext`; for a batch handler
 * (`(batch: TaskBatch<A>)`), the arguments `A` of one item.
 */
export type TaskArgs<F> = F extends (...args: infer P) => unknown
  ? P extends [TaskBatch<infer A>]
    ? A
    : P extends [...infer Rest, infer Last]
      ? [Last] extends [TaskContext]
        ? Rest
        : P
      : P
  : unknown[];

/** A task given by name or by a reference to its decorated method. */
export type TaskRef = string | ((...args: any[]) => unknown);

/**
 * What a task's `result()` resolves to: its handler's return type, awaited; for a batch
 * handler, one element of the array it returns (undefined when it returns nothing).
 */
export type TaskResult<F> = F extends (...args: infer P) => infer R
  ? P extends [TaskBatch<any>]
    ? Awaited<R> extends readonly (infer E)[]
      ? E
      : undefined
    : Awaited<R>
  : unknown;
