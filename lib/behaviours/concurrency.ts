import type { ConcurrencyOptions } from '../interfaces/docket-task-options.interface.js';
import { positive, ruleTemplate, type PlanContext } from './plan-checks.js';
import type { RuleTemplate } from '../explorer/task-definition.js';

/**
 * Concurrency: at most `max` executions at once per value of `argument` (or per task). The
 * claim script takes a slot or puts the task in a waiting line; the finish script gives the
 * slot back and wakes the next in line; the worker's lease renewal keeps a running task's
 * slot (a slot not renewed for the stale time goes to the next task).
 */
export function concurrencyRule(context: PlanContext, options: ConcurrencyOptions): RuleTemplate {
  const max = positive(context, 'concurrency.max', options.max, true);
  return ruleTemplate(context, 'conc', options, { m: max });
}
