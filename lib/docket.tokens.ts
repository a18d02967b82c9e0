/** Metadata key that `@DocketTask` writes on a method. */
export const DOCKET_TASK_METADATA = 'docket:task';
/** Metadata key that `@Ctx` writes on a method: the index of the context parameter. */
export const DOCKET_CTX_METADATA = 'docket:ctx';
/** Injection token of the resolved (defaults merged) options. */
export const DOCKET_RESOLVED_OPTIONS = Symbol('DOCKET_RESOLVED_OPTIONS');

export const CONSUMER_GROUP = 'docket-workers';

export const DEFAULTS = {
  name: 'docket',
  url: 'redis://localhost:6379/0',
  executionTtl: 900_000,
  heartbeatInterval: 2_000,
  missedHeartbeats: 5,
  maxPayloadBytes: 1_048_576,
  deadLetterTtl: 7 * 24 * 3_600_000,
  worker: {
    concurrency: 10,
    redeliveryTimeout: 300_000,
    reconnectionDelay: 5_000,
    minimumCheckInterval: 1_000,
    schedulingResolution: 250,
    scheduleAutomaticTasks: true,
    shutdownTimeout: 30_000,
    autoStart: true,
  },
} as const;

/** Longest a producer waits for a connection that is still being made before it fails. */
export const CONNECT_WAIT_MS = 2_000;
