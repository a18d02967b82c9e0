import { registerAs } from '@nestjs/config';
import type { DocketModuleOptions, DocketWorkerOptions } from '../../lib/index.js';
import { duration, flag, text, wholeNumber } from './env.js';

/**
 * The docket's options from the environment. Only what is set is passed on, so the module's
 * own defaults apply to the rest; worker variables are those the `docket worker` CLI reads.
 */
export const docketConfig = registerAs('docket', (): DocketModuleOptions => {
  const worker: DocketWorkerOptions = {
    name: text('DOCKET_WORKER_NAME'),
    concurrency: wholeNumber('DOCKET_WORKER_CONCURRENCY', undefined, 1),
    redeliveryTimeout: duration('DOCKET_WORKER_REDELIVERY_TIMEOUT'),
    reconnectionDelay: duration('DOCKET_WORKER_RECONNECTION_DELAY'),
    minimumCheckInterval: duration('DOCKET_WORKER_MINIMUM_CHECK_INTERVAL'),
    shutdownTimeout: duration('DOCKET_WORKER_SHUTDOWN_TIMEOUT'),
  };
  return defined({
    name: text('DOCKET_NAME', 'sample'),
    // with no DOCKET_URL the tasks run in this process on memory:// (no Redis needed)
    url: text('DOCKET_URL', 'memory://'),
    executionTtl: duration('DOCKET_EXECUTION_TTL'),
    metrics: flag('DOCKET_METRICS', true),
    // DOCKET_WORKER=false makes a producer-only process (an API tier that never runs tasks)
    worker: flag('DOCKET_WORKER', true) ? defined(worker) : false,
  });
});

/** `value` without its undefined properties. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
