import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { StrikeSync } from './behaviours/strike-sync.js';
import type { ResolvedDocketOptions, ResolvedWorkerOptions } from './config/resolve-options.js';
import { DOCKET_METRICS, DOCKET_OPTIONS, DOCKET_STORE, DOCKET_TRACING } from './docket.tokens.js';
import { WorkerStateError } from './errors/worker-state.error.js';
import { TaskRegistry } from './explorer/task-registry.js';
import type { DocketMetrics } from './observability/docket-metrics.js';
import type { DocketTracing } from './observability/docket-tracing.js';
import { DocketClient } from './producer/docket.client.js';
import { SchedulerService } from './scheduler.service.js';
import type { DocketStore } from './store/docket-store.js';
import { WorkerHealth } from './worker/worker-health.js';
import { WorkerSession } from './worker/worker-session.js';

/** What a worker is doing, for health checks and operators. */
export interface WorkerStatus {
  /** 'stopped', 'running' or 'draining' (shutting down). */
  state: 'stopped' | 'running' | 'draining';
  name: string;
  concurrency: number;
  /** Handlers running now. */
  activeTasks: number;
  /** When the delivery loop last completed a read (epoch ms); its start time before that. */
  lastPollAt: number;
  /** When a loop last met a Redis error and began to wait for a reconnection (epoch ms). */
  lastErrorAt: number;
  /** Redis errors the loops met. */
  disruptions: number;
}

/**
 * The worker of this process: with `autoStart`, it works from application bootstrap to
 * shutdown, draining then; tests and the CLI call a `run*` method instead. The work itself is
 * a `WorkerSession` (worker/): delivery, claims, handlers, leases, heartbeat, scheduler.
 */
@Injectable()
export class DocketWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DocketWorker');
  private session?: WorkerSession;
  private readonly health: WorkerHealth;
  private limits?: Map<string, number>;
  private foreverRuns = 0;
  private closed = false;
  private closeWaiters: (() => void)[] = [];

  /** @internal Nest injects the engine's parts; applications get this class from Nest. */
  constructor(
    private readonly registry: TaskRegistry,
    private readonly scheduler: SchedulerService,
    private readonly client: DocketClient,
    private readonly strikes: StrikeSync,
    @Inject(DOCKET_OPTIONS) private readonly options: ResolvedDocketOptions,
    @Inject(DOCKET_STORE) private readonly store: DocketStore,
    @Inject(DOCKET_METRICS) private readonly metrics: DocketMetrics,
    @Inject(DOCKET_TRACING) private readonly tracing: DocketTracing,
  ) {
    this.health = new WorkerHealth(metrics, options.worker ? options.worker.name : '');
  }

  /** This worker's consumer name. */
  get name(): string {
    return this.workerOptions.name;
  }

  /** Whether the loops run: 'stopped', 'running' or 'draining' (shutting down). */
  get state(): WorkerStatus['state'] {
    return this.session?.state ?? 'stopped';
  }

  /** How many tasks this worker runs now. */
  get activeTasks(): number {
    return this.session?.dispatcher.flow.busy ?? 0;
  }

  /** What this worker is doing now. */
  status(): WorkerStatus {
    const { lastPollAt, lastErrorAt, disruptions } = this.health;
    return {
      state: this.state,
      name: this.options.worker ? this.options.worker.name : '',
      concurrency: this.options.worker ? this.options.worker.concurrency : 0,
      activeTasks: this.activeTasks,
      lastPollAt,
      lastErrorAt,
      disruptions,
    };
  }

  private get workerOptions(): ResolvedWorkerOptions {
    const worker = this.options.worker;
    if (!worker) {
      throw new WorkerStateError(
        'this process has no worker: DocketModule was configured with worker: false',
      );
    }
    return worker;
  }

  onApplicationBootstrap(): void {
    const worker = this.options.worker;
    if (worker && worker.autoStart) void this.runForever();
  }

  /**
   * The application closes: drain. When a process signal (Ctrl-C, SIGTERM) closes it, the
   * same signal again during the drain stops waiting: running tasks are handed back at once.
   */
  async beforeApplicationShutdown(signal?: string): Promise<void> {
    if (this.closed) return;
    const session = this.session;
    const again = () => {
      this.logger.warn(`${signal} again: stopping now, running tasks are handed back`);
      session?.cutShort();
    };
    if (signal && session) process.once(signal, again);
    try {
      await this.stop(signal);
    } finally {
      if (signal) process.off(signal, again);
    }
    this.closed = true;
    session?.loop.releaseWaiters();
    for (const resolve of this.closeWaiters.splice(0)) resolve();
  }

  /** Work until the application closes. */
  async runForever(): Promise<void> {
    this.foreverRuns++;
    try {
      this.start();
      await this.untilClosed();
    } finally {
      this.foreverRuns--;
    }
  }

  /**
   * Work until the stream and the queue are empty (future tasks included) and nothing runs,
   * or until the application closes. Work held by a pause does not count.
   */
  async runUntilFinished(): Promise<void> {
    const session = this.start();
    await Promise.race([session.loop.untilFinished(), this.untilClosed()]);
    if (this.foreverRuns === 0 && !session.loop.waiting) await this.stop();
  }

  /** Like `runUntilFinished`, executing each named key at most `n` times. */
  async runAtMost(limits: Record<string, number>): Promise<void> {
    this.limits = new Map(Object.entries(limits));
    try {
      await this.runUntilFinished();
    } finally {
      this.limits = undefined;
    }
  }

  private untilClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  private start(): WorkerSession {
    const worker = this.workerOptions;
    if (this.closed) throw new WorkerStateError('the docket worker has shut down');
    // a session that drains goes on draining; its waiters are answered when the worker closes
    if (this.session) return this.session;
    const session = new WorkerSession({
      options: this.options,
      worker,
      store: this.store,
      registry: this.registry,
      strikes: this.strikes,
      metrics: this.metrics,
      tracing: this.tracing,
      client: this.client,
      scheduler: this.scheduler,
      health: this.health,
      limits: () => this.limits,
    });
    this.session = session;
    session.start();
    return session;
  }

  private async stop(signal?: string): Promise<void> {
    const session = this.session;
    if (!session || session.state !== 'running') return;
    await session.stop(signal);
    if (this.session === session) this.session = undefined;
  }
}
