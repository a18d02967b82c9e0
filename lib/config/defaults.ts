/** The defaults of every option (the one place they are written). */
export const DEFAULTS = {
  name: 'docket',
  url: 'redis://localhost:6379/0',
  executionTtl: 900_000,
  heartbeatInterval: 2_000,
  missedHeartbeats: 5,
  maxPayloadBytes: 1_048_576,
  maxKeyBytes: 1_024,
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
    maxRedeliveries: 3,
  },
} as const;

/** Longest a command waits for a connection that is still being made before it fails. */
export const CONNECT_WAIT_MS = 2_000;
