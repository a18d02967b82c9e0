import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { DocketHealthIndicator } from '../../lib/index.js';
import type { HealthConfig } from '../config/index.js';
import { HEALTH_OPTIONS } from './health.constants.js';

/**
 * Probes for an orchestrator: 200 when up, 503 with the reason when down.
 * `/health/live` restarts a process whose worker loop is stuck; `/health/ready` takes a
 * process out of rotation while it cannot reach Redis (or, optionally, while the queue is
 * deeper than `HEALTH_MAX_QUEUE_DEPTH`).
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly docket: DocketHealthIndicator,
    @Inject(HEALTH_OPTIONS) private readonly options: HealthConfig,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([() => this.docket.isLive('docket')]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    const { readyTimeout, maxQueueDepth } = this.options;
    return this.health.check([
      () => this.docket.isReady('docket', { timeout: readyTimeout, maxQueueDepth }),
    ]);
  }
}
