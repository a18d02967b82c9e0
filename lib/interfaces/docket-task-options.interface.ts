/** How a failed task is tried again. */
export interface RetryOptions {
  /** Total attempts, the first included; `Infinity` retries forever. */
  attempts: number;
  /** Delay before the next attempt, in ms. @default 0 */
  delay?: number;
  /** @default 'fixed' */
  backoff?: 'fixed' | 'exponential';
  /** Cap of an exponential delay, in ms. */
  maxDelay?: number;
}

export interface PerpetualOptions {
  every: number;
  automatic?: boolean;
}

export interface CronOptions {
  expression: string;
  /** IANA time zone. @default 'UTC' */
  tz?: string;
  /** @default true */
  automatic?: boolean;
}

export interface ConcurrencyOptions {
  max: number;
  argument?: string;
  scope?: string;
}

export interface RateLimitOptions {
  limit: number;
  per: number;
  argument?: string;
  drop?: boolean;
  scope?: string;
}

export interface DebounceOptions {
  settle: number;
  argument?: string;
  scope?: string;
}

export interface CooldownOptions {
  window: number;
  argument?: string;
  scope?: string;
}

/** How a batch task gathers its executions (see `TaskBatch`). */
export interface BatchOptions {
  /** Most executions one call of the handler receives (a whole number > 0). */
  size: number;
  /** How long a batch that is not full waits for more items, in ms. @default 0 */
  lingerMs?: number;
}

/** Options of `@DocketTask()`. */
export interface DocketTaskOptions {
  /** Task name. @default the method's name */
  name?: string;
  retry?: RetryOptions;
  /** Time a run may take, in ms. */
  timeout?: number;
  perpetual?: PerpetualOptions;
  cron?: string | CronOptions;
  concurrency?: ConcurrencyOptions;
  rateLimit?: RateLimitOptions | RateLimitOptions[];
  debounce?: DebounceOptions;
  cooldown?: CooldownOptions | CooldownOptions[];
  /**
   * 0 (first) … 9 (last): among due tasks no worker has read yet, the lowest number starts
   * first (an add may give its own). @default 5
   */
  priority?: number;
  /**
   * Run up to `size` due executions of this task in one call of its handler, whose single
   * parameter is a `TaskBatch` of them. Each item keeps its own execution, state, result and
   * retries; the batch takes one worker slot.
   */
  batch?: BatchOptions;
}
