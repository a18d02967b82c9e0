import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import type { StrikeSync } from '../behaviours/strike-sync.js';
import type { ResolvedDocketOptions, ResolvedWorkerOptions } from '../config/resolve-options.js';
import type { TaskRegistry } from '../explorer/task-registry.js';
import type { DocketMetrics } from '../observability/docket-metrics.js';
import type { DocketTracing } from '../observability/docket-tracing.js';
import type { DocketClient } from '../producer/docket.client.js';
import type { SchedulerService } from '../scheduler.service.js';
import type { DeliveryReader, DocketStore } from '../store/docket-store.js';
import { packageVersion } from '../util/package-version.js';
import { sleep, within } from '../util/time.js';
import { AutomaticTasks } from './automatic-tasks.js';
import { CancelListener } from './cancel-listener.js';
import { DeliveryLoop } from './delivery-loop.js';
import { Dispatcher } from './dispatcher.js';
import { Finisher } from './finisher.js';
import { Heartbeat } from './heartbeat.js';
import { LeaseKeeper } from './lease-keeper.js';
import { TaskRunner } from './task-runner.js';
import type { WorkerHealth } from './worker-health.js';

/** What a session is made of. */
export interface SessionEnv {
  options: ResolvedDocketOptions;
  worker: ResolvedWorkerOptions;
  store: DocketStore;
  registry: TaskRegistry;
  strikes: StrikeSync;
  metrics: DocketMetrics;
  tracing: DocketTracing;
  client: DocketClient;
  scheduler: SchedulerService;
  health: WorkerHealth;
  /** `runAtMost` limits in effect (undefined: none). */
  limits(): Map<string, number> | undefined;
}

/** One part of a session: started in list order, stopped in reverse. */
interface Part {
  name: string;
  start(): unknown;
  /** `signal`: the process signal that asked the worker to stop, if one did. */
  stop(signal?: string): unknown;
}

/**
 * One run of the worker, from start to drained stop. Its parts start from one list, in order
 * (each waits out a Redis outage before the next starts), and stop in reverse: the delivery
 * loop and the scheduler first, then the drain (running tasks may finish up to
 * `shutdownTimeout`, then are abandoned to redelivery), then the parts that kept those tasks
 * alive, and last the consumer's membership of the group.
 */
export class WorkerSession {
  private readonly logger = new Logger('DocketWorker');
  readonly dispatcher: Dispatcher;
  readonly loop: DeliveryLoop;
  private readonly reader: DeliveryReader;
  private readonly finisher: Finisher;
  private readonly parts: Part[];
  private started = 0;
  private starting?: Promise<void>;
  private stopping = new AbortController();
  private idleWaiters: (() => void)[] = [];
  private abandoned = false;
  private readonly cut = new AbortController();
  /** 'running' until `stop()`, then 'draining'. */
  state: 'running' | 'draining' = 'running';

  constructor(private readonly env: SessionEnv) {
    const { worker, options, store, health } = env;
    const disrupted = (error: unknown) => health.disrupted(error);
    this.reader = store.openReader(worker.name);
    this.finisher = new Finisher({
      store,
      consumer: worker.name,
      executionTtl: options.executionTtl,
      deadLetterTtl: options.deadLetterTtl,
      reconnectionDelay: worker.reconnectionDelay,
      beginRead: () => this.dispatcher.beginReadAlong(),
      endRead: (entries) => this.dispatcher.endRead(entries),
      // a read along with ends is a poll of the stream, as the loop's own read is
      polled: () => health.polled(),
      disrupted,
      flushed: () => this.loop.roomChanged(),
    });
    this.dispatcher = new Dispatcher({
      worker: worker.name,
      concurrency: worker.concurrency,
      redeliveryTimeout: worker.redeliveryTimeout,
      maxRedeliveries: worker.maxRedeliveries,
      fallbackTask: worker.fallbackTask,
      executionTtl: options.executionTtl,
      deadLetterTtl: options.deadLetterTtl,
      store,
      registry: env.registry,
      strikes: env.strikes.list,
      metrics: env.metrics,
      runner: new TaskRunner({
        worker: worker.name,
        executionTtl: options.executionTtl,
        maxPayloadBytes: options.maxPayloadBytes,
        store,
        client: env.client,
        metrics: env.metrics,
        tracing: env.tracing,
      }),
      finisher: this.finisher,
      limits: env.limits,
      disrupted: (error) => health.waiting(error),
      onIdle: () => this.becameIdle(),
      onRoom: () => this.loop.roomChanged(),
      handBack: (ids) =>
        void store.release(worker.name, ids, [], Date.now()).catch((error: unknown) => {
          health.disrupted(error);
        }),
      polled: () => health.polled(),
      loopWantsTurn: () => this.loop.wantsTurn(),
    });
    this.loop = new DeliveryLoop({
      consumer: worker.name,
      redeliveryTimeout: worker.redeliveryTimeout,
      minimumCheckInterval: worker.minimumCheckInterval,
      reconnectionDelay: worker.reconnectionDelay,
      store,
      reader: this.reader,
      dispatcher: this.dispatcher,
      health,
      readGoesAlong: () => this.finisher.pending,
    });
    const cancels = new CancelListener(store, (key) => this.dispatcher.cancel(key));
    const heartbeat = new Heartbeat({
      store,
      worker: worker.name,
      heartbeatInterval: options.heartbeatInterval,
      missedHeartbeats: options.missedHeartbeats,
      // '*': a worker with a fallback task runs any task (explain counts it as a live worker)
      tasks: () => (worker.fallbackTask ? [...env.registry.names, '*'] : env.registry.names),
      // the scheduler finds due work even when nobody announced it (a foreign producer)
      nextDue: (due) => env.scheduler.notice(due),
      // shown by the inspector and the dashboard's workers page
      about: {
        host: hostname(),
        pid: process.pid,
        startedAt: Date.now(),
        version: packageVersion(),
        concurrency: worker.concurrency,
      },
      disrupted,
    });
    const leases = new LeaseKeeper({
      store,
      consumer: worker.name,
      redeliveryTimeout: worker.redeliveryTimeout,
      leased: () => ({
        ids: this.dispatcher.leasedIds(),
        running: this.dispatcher.running
          .held()
          .map((task) => ({ key: task.message.key, admission: task.admission })),
      }),
      cancelled: (key) => this.dispatcher.cancel(key),
      disrupted,
    });
    const seeding = new AutomaticTasks({
      store,
      registry: env.registry,
      strikes: env.strikes,
      disrupted,
    });
    this.parts = [
      {
        name: 'consumer group',
        start: () => store.ensureGroup(),
        // a consumer that holds nothing leaves the group (one with abandoned tasks stays for redelivery)
        stop: () => (this.abandoned ? undefined : within(store.forgetConsumer(worker.name), 1_000)),
      },
      { name: 'cancel listener', start: () => cancels.start(), stop: () => cancels.stop() },
      { name: 'strikes', start: () => env.strikes.ready(), stop: () => undefined },
      { name: 'heartbeat', start: () => heartbeat.start(), stop: () => heartbeat.stop() },
      { name: 'lease keeper', start: () => leases.start(), stop: () => leases.stop() },
      {
        name: 'automatic tasks',
        start: () => worker.scheduleAutomaticTasks && seeding.start(),
        stop: () => seeding.stop(),
      },
      { name: 'drain', start: () => undefined, stop: (signal) => this.drain(signal) },
      {
        name: 'scheduler',
        start: () => env.scheduler.start(disrupted),
        stop: () => within(env.scheduler.stop(), 1_000),
      },
      { name: 'delivery loop', start: () => this.loop.start(), stop: () => this.loop.stop() },
    ];
  }

  /** Start the parts in order; a Redis outage is waited out (the loop counts as alive). */
  start(): void {
    this.env.health.polled();
    this.starting ??= this.startParts();
  }

  private async startParts(): Promise<void> {
    const { worker, health } = this.env;
    while (this.started < this.parts.length) {
      if (this.stopping.signal.aborted) return;
      const part = this.parts[this.started];
      try {
        await part.start();
        if (this.stopping.signal.aborted) {
          // `stop()` ran while this part started: it did not see it, so it is stopped here
          await part.stop(this.stopSignal());
          return;
        }
        this.started++;
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        health.waiting(error);
        this.logger.warn(
          `starting the ${part.name}: ${(error as Error)?.message ?? error}; retrying in ${worker.reconnectionDelay}ms`,
        );
        await sleep(worker.reconnectionDelay, this.stopping.signal);
      }
    }
    this.logger.log(
      `worker ${worker.name} started on docket "${this.env.options.name}" (${this.env.store.description}), ` +
        `concurrency ${worker.concurrency}, tasks: ${this.env.registry.names.sort().join(', ')}`,
    );
  }

  /**
   * Stop taking work, drain, and stop every part that was started, in reverse order. `signal`
   * is the process signal that asked for it (named in the drain's log line).
   */
  async stop(signal?: string): Promise<void> {
    if (this.state === 'draining') return;
    this.state = 'draining';
    this.stopping.abort(new StopRequest(signal));
    // Ends still get written, but one that fails is no longer retried: redelivery takes over.
    this.finisher.stopRetrying();
    this.dispatcher.drain();
    // a part still starting is stopped by startParts once its start ends
    await within(this.starting, this.env.worker.minimumCheckInterval + 1_000);
    for (let i = this.started - 1; i >= 0; i--) await this.parts[i].stop(signal);
    this.reader.close();
  }

  /** The process signal that asked `stop()` to run, if one did. */
  private stopSignal(): string | undefined {
    const reason: unknown = this.stopping.signal.reason;
    return reason instanceof StopRequest ? reason.signal : undefined;
  }

  /**
   * Running tasks finish up to `shutdownTimeout`; what is left is aborted and handed back at
   * once, for another worker to take (not counted as a vanished delivery). `signal` is named
   * in the log line.
   */
  private async drain(signal?: string): Promise<void> {
    // Messages read ahead or being claimed still start: the drain waits for them too.
    if (!this.dispatcher.idle() && !this.cut.signal.aborted) {
      const { shutdownTimeout } = this.env.worker;
      this.logger.log(
        `shutting down: waiting up to ${seconds(shutdownTimeout)} for ${this.dispatcher.running.size} running task(s)` +
          (signal ? ` (${signal} again stops now and hands them back)` : ''),
      );
      const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      const cut = new Promise<void>((resolve) =>
        this.cut.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      const started = Date.now();
      await within(Promise.race([idle, cut]), shutdownTimeout);
      if (this.dispatcher.idle()) {
        this.logger.log(`running tasks finished in ${seconds(Date.now() - started)}`);
      }
    }
    const left = this.dispatcher.abandon();
    if (!left) return;
    this.abandoned = true;
    const { store, worker } = this.env;
    await within(store.release(worker.name, left.held, left.started, Date.now()), 1_000);
  }

  /**
   * Stop waiting for running tasks (a second signal during the drain): they are aborted and
   * handed back at once.
   */
  cutShort(): void {
    this.cut.abort();
  }

  private becameIdle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.loop.becameIdle();
  }
}

/** Why the session stops: `stop()` was called, by the process signal `signal` if one. */
class StopRequest extends Error {
  constructor(readonly signal: string | undefined) {
    super('the worker is stopping');
  }
}

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
