import type { DocketTaskOptions } from '../interfaces/docket-task-options.interface.js';

/** Where an argument named by a task option lives: parameter position and path inside it. */
export interface ArgumentPath {
  name: string;
  index: number;
  path: string[];
}

/** The kinds of admission rule (the `t` of the claim script's rules). */
export type RuleKind = 'conc' | 'rate' | 'debounce' | 'cooldown';

/**
 * One admission rule of a task, compiled at boot: the rule's key without the argument part
 * (the store puts it under the docket's prefix), the argument whose value completes the key,
 * and the rule's numbers.
 */
export interface RuleTemplate {
  kind: RuleKind;
  base: string;
  argument?: ArgumentPath;
  params: Record<string, number | boolean>;
}

/** What a task's options mean for the engine, checked once at boot (behaviours/plan.ts). */
export interface TaskPlan {
  /** The priority of its executions unless an add gives one (0 first … 9 last). */
  priority: number;
  perpetual?: { every: number; automatic: boolean };
  /** The next time a cron expression matches, strictly after `from`. */
  cron?: { schedule: { next(from: number): number }; automatic: boolean };
  rules: RuleTemplate[];
  /** A batch task: how many executions one call takes, and how long a batch waits to fill. */
  batch?: { size: number; lingerMs: number };
}

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
  /**
   * Names of the task arguments in order (the context parameter excluded); none for a batch
   * task, whose items' arguments are named by position.
   */
  readonly parameters: (string | null)[];
  /** Whether the last parameter is a rest parameter (any number of arguments). */
  readonly rest: boolean;
  /** The options, checked and compiled at boot. */
  readonly plan: TaskPlan;
}

/** Checks a task's options and compiles them (behaviours/plan.ts); throws a boot error. */
export type PlanCompiler = (definition: Omit<TaskDefinition, 'plan'>) => TaskPlan;
