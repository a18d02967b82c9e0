import { registerAs } from '@nestjs/config';
import { duration, wholeNumber } from './env.js';

/** What `/health/ready` checks, and how shutdown gives the load balancer time. */
export interface HealthConfig {
  /** `HEALTH_READY_TIMEOUT`: longest Redis may take to answer the readiness check. @default 1000 */
  readyTimeout: number;
  /** `HEALTH_MAX_QUEUE_DEPTH`: not ready while more tasks than this wait for a worker. */
  maxQueueDepth?: number;
  /**
   * `HEALTH_SHUTDOWN_DELAY`: after SIGTERM, answer 503 this long before shutting down, so
   * that the load balancer stops sending requests first. @default 0
   */
  shutdownDelay: number;
}

export const healthConfig = registerAs('health', (): HealthConfig => ({
  readyTimeout: duration('HEALTH_READY_TIMEOUT', 1_000),
  maxQueueDepth: wholeNumber('HEALTH_MAX_QUEUE_DEPTH'),
  shutdownDelay: duration('HEALTH_SHUTDOWN_DELAY', 0),
}));
