import { Logger } from '@nestjs/common';
import type { DocketMetrics } from '../observability/docket-metrics.js';

/** What a worker's loops report: when the delivery loop last polled, and Redis trouble. */
export class WorkerHealth {
  private readonly logger = new Logger('DocketWorker');
  /** When the delivery loop last completed a read (epoch ms); the start time before that. */
  lastPollAt = 0;
  /** When a loop last met a Redis error and began to wait for a reconnection. */
  lastErrorAt = 0;
  /** Redis errors the loops met. */
  disruptions = 0;

  constructor(
    private readonly metrics: DocketMetrics,
    private readonly worker: string,
  ) {}

  polled(): void {
    this.lastPollAt = Date.now();
  }

  /** A Redis error a loop met and goes on from (counted and logged at debug level). */
  disrupted(error: unknown): void {
    this.disruptions++;
    this.metrics.disruption(this.worker);
    this.logger.debug?.(`Redis disruption: ${(error as Error)?.message ?? error}`);
  }

  /** A Redis error the worker now waits out (`reconnectionDelay`): alive, but not polling. */
  waiting(error: unknown): void {
    this.lastErrorAt = Date.now();
    this.disrupted(error);
  }
}
