import type { RetryOptions } from '../interfaces/docket-task-options.interface.js';
import { shown, type PlanContext } from './plan-checks.js';

/** Check a retry option at boot. */
export function checkRetry(context: PlanContext, retry: RetryOptions): void {
  const { attempts, delay, maxDelay, backoff } = retry;
  if (!(attempts === Infinity || (Number.isInteger(attempts) && attempts >= 1))) {
    context.fail(`retry.attempts must be a whole number ≥ 1 or Infinity, not ${shown(attempts)}`);
  }
  for (const [field, value] of [
    ['delay', delay],
    ['maxDelay', maxDelay],
  ] as const) {
    if (value !== undefined && !(typeof value === 'number' && value >= 0)) {
      context.fail(`retry.${field} must be a number of ms ≥ 0, not ${shown(value)}`);
    }
  }
  if (backoff !== undefined && backoff !== 'fixed' && backoff !== 'exponential') {
    context.fail(`retry.backoff must be 'fixed' or 'exponential', not ${shown(backoff)}`);
  }
}

/** Total attempts a task may make (1 without a retry option). */
export function attemptsOf(retry: RetryOptions | undefined): number {
  return retry?.attempts ?? 1;
}

/** Delay before the attempt after `attempt` (1-based) failed. */
export function retryDelay(retry: RetryOptions | undefined, attempt: number): number {
  const delay = retry?.delay ?? 0;
  if (retry?.backoff !== 'exponential') return delay;
  return Math.min(delay * 2 ** (attempt - 1), retry.maxDelay ?? Infinity);
}
