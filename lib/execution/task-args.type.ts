import type { TaskBatch } from '../interfaces/task-batch.interface.js';
import type { TaskContext } from '../interfaces/task-context.interface.js';

type IsAny<T> = 0 extends 1 & T ? true : false;

/** Whether a handler's parameters are those of a batch handler: one `TaskBatch` (not `any`). */
type IsBatch<P> = P extends [infer B]
  ? IsAny<B> extends true
    ? false
    : [B] extends [TaskBatch<any>]
      ? true
      : false
  : false;

/** One item's result of what a batch handler returned (spread over a union). */
type ItemResult<V> = V extends readonly (infer E)[] ? E : undefined;

/**
 * A handler's parameters without a trailing `TaskContext`; for a batch handler
 * (`(batch: TaskBatch<A>)`), the arguments `A` of one item.
 */
export type TaskArgs<F> = F extends (...args: infer P) => unknown
  ? IsBatch<P> extends true
    ? P extends [TaskBatch<infer A>]
      ? A
      : never
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
  ? IsBatch<P> extends true
    ? ItemResult<Awaited<R>>
    : Awaited<R>
  : unknown;
