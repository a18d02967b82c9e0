import type { TaskContext } from '../interfaces/task-context.interface.js';

/** A handler's parameters without a trailing `TaskContext`. */
export type TaskArgs<F> = F extends (...args: infer P) => unknown
  ? P extends [...infer Rest, infer Last]
    ? [Last] extends [TaskContext]
      ? Rest
      : P
    : P
  : unknown[];

/** A task given by name or by a reference to its decorated method. */
export type TaskRef = string | ((...args: any[]) => unknown);

/** What a task's `result()` resolves to: its handler's return type, awaited. */
export type TaskResult<F> = F extends (...args: any[]) => infer R ? Awaited<R> : unknown;
