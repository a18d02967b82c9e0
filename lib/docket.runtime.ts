import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { StrikeSync } from './behaviours/strike-sync.js';
import { CONSUMER_GROUP, DOCKET_RESOLVED_OPTIONS } from './docket.tokens.js';
import type { ResolvedDocketOptions } from './config/resolve-options.js';
import { TaskRegistry } from './explorer/task-registry.js';
import { DocketConnection } from './store/connection.js';
import { DocketKeys } from './store/keys.js';
import { Subscriptions } from './store/subscriptions.js';
import { NO_METRICS, type DocketMetrics } from './observability/docket-metrics.js';
import { prometheusMetrics } from './observability/prometheus-metrics.js';
import { DocketTracing } from './observability/docket-tracing.js';

/**
 * What the client, the worker and executions share: options, key names, connections and the
 * task registry. Internal; closes the connections when the application has shut down.
 */
@Injectable()
export class DocketRuntime implements OnModuleInit, OnApplicationShutdown {
  readonly keys: DocketKeys;
  readonly connection: DocketConnection;
  readonly subscriptions: Subscriptions;
  readonly strikes: StrikeSync;
  /** Prometheus metrics when prom-client is installed and `metrics` is on. */
  metrics: DocketMetrics = NO_METRICS;
  /** OpenTelemetry spans when `@opentelemetry/api` is installed. */
  tracing: DocketTracing;

  constructor(
    @Inject(DOCKET_RESOLVED_OPTIONS) readonly options: ResolvedDocketOptions,
    readonly registry: TaskRegistry,
  ) {
    this.keys = new DocketKeys(options.name);
    this.connection = new DocketConnection(options.url, options.connection);
    this.subscriptions = new Subscriptions(this.connection);
    this.strikes = new StrikeSync(this.connection, this.subscriptions, this.keys);
    this.tracing = DocketTracing.none(options.name);
  }

  async onModuleInit(): Promise<void> {
    this.tracing = await DocketTracing.create(this.options.name);
    if (!this.options.metrics) return;
    this.metrics =
      (await prometheusMetrics(this.options.name, {
        docket: this.options.name,
        depths: () => this.depths(),
      })) ?? NO_METRICS;
  }

  /**
   * Queue depth (due, not yet claimed), schedule depth (future), running (claimed, not ended),
   * live workers and strikes in effect, read now in one round trip.
   */
  async depths(): Promise<{
    queue: number;
    schedule: number;
    running: number;
    workers: number;
    strikes: number;
  }> {
    const { commands } = this.connection;
    if (commands.status !== 'ready') throw new Error('Redis is not connected');
    const now = Date.now();
    const replies = await commands
      .pipeline()
      .xlen(this.keys.stream)
      .xpending(this.keys.stream, CONSUMER_GROUP)
      .zcount(this.keys.queue, '-inf', now)
      .zcount(this.keys.queue, `(${now}`, '+inf')
      .zcount(
        this.keys.workers,
        now - this.options.heartbeatInterval * this.options.missedHeartbeats,
        '+inf',
      )
      .exec();
    const [stream, pending, due, future, workers] = (replies ?? []).map(([error, value], i) => {
      // no consumer group yet: no worker has read anything, so nothing is pending
      if (error && i === 1 && String(error.message).includes('NOGROUP')) return 0;
      if (error) throw error;
      return i === 1 ? Number((value as [number])[0]) : Number(value);
    });
    // Messages stay on the stream until their end is written: the pending ones are running.
    return {
      queue: Math.max(0, stream - pending) + due,
      schedule: future,
      running: pending,
      workers,
      strikes: this.strikes.list.size,
    };
  }

  get hasWorker(): boolean {
    return this.options.worker !== false;
  }

  onApplicationShutdown(): void {
    this.metrics.close();
    this.connection.close();
  }
}
