import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { encodeResult } from '../execution/codec.js';
import { argumentValue } from '../explorer/arguments.js';

import type { AdmissionRule } from '../store/admission.js';
import { concurrencyRule } from './concurrency.js';
import { cooldownRule } from './cooldown.js';
import { CronSchedule, cronOptions } from './cron.js';
import { debounceRule } from './debounce.js';
import { checkShapes, list, positive, shown, type PlanContext } from './plan-checks.js';
import type { PlanCompiler, TaskPlan } from '../explorer/task-definition.js';
import type { DocketTaskOptions } from '../interfaces/docket-task-options.interface.js';
import { DEFAULT_PRIORITY, priorityProblem } from './priority.js';
import { rateLimitRule } from './rate-limit.js';
import { checkRetry } from './retry.js';

/** Check a task's options and compile them; throws a boot error naming the task. */
export const compilePlan: PlanCompiler = (definition) => {
  const { options, name, source } = definition;
  const context: PlanContext = {
    definition,
    fail: (problem) => {
      throw new DocketConfigurationError(`task "${name}" (${source}): ${problem}`);
    },
  };
  const { fail } = context;
  checkShapes(context, options);
  if (options.perpetual && options.cron) fail('perpetual and cron cannot be combined; choose one');
  const plan: TaskPlan = { priority: DEFAULT_PRIORITY, rules: [] };
  if (options.priority !== undefined) {
    const problem = priorityProblem(options.priority);
    if (problem) fail(`priority ${problem}`);
    plan.priority = options.priority;
  }
  if (options.retry) checkRetry(context, options.retry);
  if (options.timeout !== undefined) positive(context, 'timeout', options.timeout);
  if (options.perpetual) {
    plan.perpetual = {
      every: positive(context, 'perpetual.every', options.perpetual.every),
      automatic: options.perpetual.automatic ?? false,
    };
  }
  if (options.cron) {
    const cron = cronOptions(options.cron);
    if (typeof cron.expression !== 'string') {
      fail(`cron.expression must be a cron expression string, not ${shown(cron.expression)}`);
    }
    try {
      plan.cron = { schedule: new CronSchedule(cron), automatic: cron.automatic };
    } catch (error) {
      fail(`cron: ${(error as Error).message}`);
    }
  }
  for (const c of list(options.cooldown)) plan.rules.push(cooldownRule(context, c));
  if (options.debounce) plan.rules.push(debounceRule(context, options.debounce));
  for (const r of list(options.rateLimit)) plan.rules.push(rateLimitRule(context, r));
  if (Array.isArray(options.concurrency) || Array.isArray(options.debounce)) {
    fail('only one concurrency and one debounce option are allowed');
  }
  if (options.concurrency) plan.rules.push(concurrencyRule(context, options.concurrency));
  if (options.batch) plan.batch = batchPlan(context, options.batch, definition.ctxIndex);
  return plan;
};

/** The largest batch: one read and one claim call carry a whole batch. */
const MAX_BATCH = 1_000;

/** A batch task's numbers; a batch handler takes the batch alone and is not perpetual. */
function batchPlan(
  context: PlanContext,
  batch: NonNullable<DocketTaskOptions['batch']>,
  ctxIndex: number,
): NonNullable<TaskPlan['batch']> {
  const { options } = context.definition;
  if (options.perpetual || options.cron) {
    context.fail('batch cannot be combined with perpetual or cron');
  }
  if (ctxIndex >= 0) {
    context.fail('a batch handler takes only its TaskBatch (no @Ctx(); use batch.signal)');
  }
  const size = positive(context, 'batch.size', batch.size, true);
  if (size > MAX_BATCH) context.fail(`batch.size must be at most ${MAX_BATCH}, not ${size}`);
  const lingerMs = batch.lingerMs ?? 0;
  if (typeof lingerMs !== 'number' || !Number.isFinite(lingerMs) || lingerMs < 0) {
    context.fail(`batch.lingerMs must be a number ≥ 0 (ms), not ${shown(lingerMs)}`);
  }
  return { size, lingerMs };
}

const NO_RULES: readonly AdmissionRule[] = [];

/**
 * The admission rules of one message for the claim script: each rule's key completed by the
 * value of its argument. `staleAfter` (the worker's redelivery timeout) is how long a
 * concurrency slot stays taken without renewal.
 */
export function admissionFor(
  plan: TaskPlan,
  args: readonly unknown[],
  staleAfter: number,
): readonly AdmissionRule[] {
  if (plan.rules.length === 0) return NO_RULES;
  return plan.rules.map((rule) => {
    let k = rule.base;
    if (rule.argument) {
      let text: string;
      try {
        text = encodeResult(argumentValue(args, rule.argument));
      } catch {
        text = 'unencodable';
      }
      k += `=${text}`;
    }
    return (
      rule.kind === 'conc'
        ? { t: rule.kind, k, ...rule.params, s: staleAfter }
        : { t: rule.kind, k, ...rule.params }
    ) as AdmissionRule;
  });
}
