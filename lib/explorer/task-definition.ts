import type { TaskPlan } from '../behaviours/task-plan.js';
import type { DocketTaskOptions } from '../interfaces/docket-task-options.interface.js';

/** A discovered task: its handler bound to the provider instance and what was read about it. */
export interface TaskDefinition {
  readonly name: string;
  /** `Class#method`, for messages. */
  readonly source: string;
  readonly options: DocketTaskOptions;
  /** The undecorated method, as `Class.prototype.method` is. */
  readonly method: (...args: any[]) => unknown;
  readonly instance: object;
  /** Index of the `@Ctx()` parameter, or -1. */
  readonly ctxIndex: number;
  /** Names of the task arguments in order (the context parameter excluded). */
  readonly parameters: (string | null)[];
  /** Whether the last parameter is a rest parameter (any number of arguments). */
  readonly rest: boolean;
  /** `method.length`: parameters before the first one with a default. */
  readonly arity: number;
  /** The options, checked and compiled at boot. */
  readonly plan: TaskPlan;
}
