import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { ResolvedDocketOptions } from '../config/resolve-options.js';
import { DOCKET_OPTIONS, DOCKET_STORE } from '../docket.tokens.js';
import { DocketInspector } from '../inspection/docket-inspector.js';
import { CONNECT_WAIT_MS } from '../config/defaults.js';
import type { DocketStore } from '../store/docket-store.js';
import { DocketWorker } from '../worker.service.js';

/** Options of the readiness check. */
export interface DocketHealthOptions {
  /** Longest a Redis PING may take, in ms. @default 1000 */
  timeout?: number;
  /** Down when more tasks than this wait for a worker. */
  maxQueueDepth?: number;
}

type Terminus = typeof import('@nestjs/terminus');
type Session = ReturnType<InstanceType<Terminus['HealthIndicatorService']>['check']>;
/**
 * Terminus's `HealthIndicatorResult` (`{ [key]: { status, ...details } }`), written out so that
 * the published declarations type-check without @nestjs/terminus, an optional peer.
 */
type HealthResult = Record<string, { status: 'up' | 'down'; [detail: string]: unknown }>;

/**
 * Terminus health indicator of the docket. `isLive` is down when this process's worker loop
 * has not completed a poll recently (a stuck loop, not just Redis); `isReady` is down when
 * Redis does not answer in time or the queue is deeper than allowed; `isHealthy` is both.
 * Never throws: a failure is reported as down with the reason.
 */
@Injectable()
export class DocketHealthIndicator {
  private terminus?: Promise<InstanceType<Terminus['HealthIndicatorService']>>;

  /** @internal Nest injects the engine's parts; applications get this class from Nest. */
  constructor(
    @Inject(DOCKET_OPTIONS) private readonly options: ResolvedDocketOptions,
    @Inject(DOCKET_STORE) private readonly store: DocketStore,
    private readonly inspector: DocketInspector,
    private readonly worker: DocketWorker,
    private readonly moduleRef: ModuleRef,
  ) {}

  private async check<const K extends string>(key: K): Promise<Session> {
    this.terminus ??= import('@nestjs/terminus').then(
      (terminus) => {
        try {
          return this.moduleRef.get(terminus.HealthIndicatorService, { strict: false });
        } catch {
          return new terminus.HealthIndicatorService();
        }
      },
      () => {
        throw new Error(
          'DocketHealthIndicator needs @nestjs/terminus: npm install @nestjs/terminus',
        );
      },
    );
    return (await this.terminus).check(key);
  }

  /** Liveness: the worker loop of this process polls (up when this process has no worker). */
  async isLive(key = 'docket'): Promise<HealthResult> {
    const session = await this.check(key);
    const data = this.liveness();
    return data.live ? session.up(data.details) : session.down(data.details);
  }

  /** Readiness: Redis answers within `timeout` and the queue is not deeper than allowed. */
  async isReady(key = 'docket', options: DocketHealthOptions = {}): Promise<HealthResult> {
    const session = await this.check(key);
    const data = await this.readiness(options);
    return data.ready ? session.up(data.details) : session.down(data.details);
  }

  /** Liveness and readiness together. */
  async isHealthy(key = 'docket', options: DocketHealthOptions = {}): Promise<HealthResult> {
    const session = await this.check(key);
    const live = this.liveness();
    const ready = await this.readiness(options);
    const details = { ...ready.details, ...live.details };
    return live.live && ready.ready ? session.up(details) : session.down(details);
  }

  private liveness(): { live: boolean; details: Record<string, unknown> } {
    const worker = this.options.worker;
    const status = this.worker.status();
    if (!worker || status.state === 'stopped') {
      return { live: true, details: { worker: worker ? 'not started' : 'none' } };
    }
    const limit = 3 * worker.minimumCheckInterval + 1_000;
    const now = Date.now();
    const since = now - status.lastPollAt;
    const busy = status.activeTasks >= worker.concurrency;
    // A loop waiting out a Redis outage (reconnectionDelay, then a connect attempt) is alive:
    // readiness is what reports Redis.
    const recovering =
      status.lastErrorAt >= status.lastPollAt &&
      now - status.lastErrorAt <= limit + worker.reconnectionDelay + CONNECT_WAIT_MS;
    const live = since <= limit || busy || recovering;
    return {
      live,
      details: {
        worker: status.name,
        lastPollMsAgo: since,
        ...(live
          ? {}
          : { message: `the worker loop has not polled for ${since}ms (limit ${limit}ms)` }),
      },
    };
  }

  private async readiness(
    options: DocketHealthOptions,
  ): Promise<{ ready: boolean; details: Record<string, unknown> }> {
    const timeout = options.timeout ?? 1_000;
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const probe = (async () => {
        await this.store.ready(timeout);
        return Promise.all([this.inspector.depths(), this.store.refusesWrites()]);
      })();
      const [depths, full] = await Promise.race([
        probe,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Redis did not answer within ${timeout}ms`)),
            timeout,
          );
        }),
      ]);
      const queueDepth = depths.queue;
      const details = {
        pingMs: Date.now() - started,
        queueDepth,
        scheduleDepth: depths.schedule,
        runningTasks: this.worker.activeTasks,
        liveWorkers: depths.workers,
      };
      if (full) {
        // workers go on draining; what fails is every add
        return { ready: false, details: { ...details, message: 'redis refuses writes (OOM)' } };
      }
      if (options.maxQueueDepth !== undefined && queueDepth > options.maxQueueDepth) {
        return {
          ready: false,
          details: {
            ...details,
            message: `queue depth ${queueDepth} exceeds ${options.maxQueueDepth}`,
          },
        };
      }
      return { ready: true, details };
    } catch (error) {
      return { ready: false, details: { message: (error as Error).message } };
    } finally {
      clearTimeout(timer);
    }
  }
}
