import type { RetryOptions } from '../interfaces/docket-task-options.interface.js';

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
