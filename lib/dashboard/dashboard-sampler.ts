import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { StateEvent } from '../public-api.js';
import { DOCKET_DASHBOARD_OPTIONS, RECENT_FAILURES } from './dashboard.constants.js';
import { DashboardDocket } from './dashboard-docket.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import type { DashboardCounts, DashboardSample, PausedView } from './dashboard-views.interface.js';
import { RingBuffer } from './ring-buffer.js';

/** A failure seen on the state channel: the last attempt of `key` failed with `error`. */
export interface SeenFailure {
  key: string;
  error: string;
  at: number;
}

/** What `DashboardSampler.onSample` tells. */
export interface SampleListener {
  taken(sample: DashboardSample, counts: DashboardCounts, paused: PausedView): void;
  /** The sample could not be read (Redis away). */
  skipped(error: unknown): void;
}

/**
 * Samples the docket every `sampleInterval` into a ring buffer covering `history`, and (with
 * `throughput`) counts completions and failures of every worker from the docket's state
 * events. Errors are logged at debug level and the sample skipped; sampling never stops.
 */
@Injectable()
export class DashboardSampler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('DocketDashboard');
  private readonly samples: RingBuffer<DashboardSample>;
  private readonly failures = new RingBuffer<SeenFailure>(RECENT_FAILURES);
  private completed = 0;
  private failed = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private unsubscribe?: () => Promise<void>;
  private listening = false;
  private subscribing?: Promise<void>;
  private readonly listeners = new Set<SampleListener>();

  constructor(
    private readonly docket: DashboardDocket,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {
    this.samples = new RingBuffer(Math.ceil(options.history / options.sampleInterval));
  }

  onApplicationBootstrap(): void {
    this.listen();
    this.schedule();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    void this.unsubscribe?.().catch(() => undefined);
  }

  /**
   * Tell `listener` of each sample taken from now on (with the counts it was taken from) and
   * each one skipped (the live stream passes them on); returns the function that stops it.
   */
  onSample(listener: SampleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Samples taken after `since` (epoch ms), oldest first. */
  history(since = 0): DashboardSample[] {
    return this.samples.toArray().filter((sample) => sample.at > since);
  }

  /** Failures seen since this process started (at most 50), newest first. */
  recentFailures(): SeenFailure[] {
    return this.failures.toArray().reverse();
  }

  /**
   * Counts of the docket, read now. Running, queued (held work and concurrency waiters
   * included) and scheduled come from the counts, in one script, so that the dashboard says what
   * `DocketInspector.counts()`, the CLI and the testing kit say; workers, dead letters and
   * strikes from the depths.
   */
  async counts(): Promise<DashboardCounts> {
    const { inspector } = this.docket;
    const [counts, depths] = await Promise.all([inspector.counts(), inspector.depths()]);
    return {
      queued: counts.queued,
      held: counts.held,
      scheduled: counts.scheduled,
      running: counts.running,
      workers: depths.workers,
      deadLetters: depths.deadLetters,
      strikes: depths.strikes,
    };
  }

  /** The counts (see `counts`) and what is paused, read now. */
  async read(): Promise<{ counts: DashboardCounts; paused: PausedView }> {
    const [counts, paused] = await Promise.all([this.counts(), this.docket.inspector.paused()]);
    return { counts, paused };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.options.sampleInterval);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      this.listen();
      const { counts, paused } = await this.read();
      const counted = this.listening;
      const sample: DashboardSample = {
        at: Date.now(),
        queued: counts.queued,
        scheduled: counts.scheduled,
        running: counts.running,
        workers: counts.workers,
        completed: counted ? this.completed : null,
        failed: counted ? this.failed : null,
      };
      this.samples.push(sample);
      this.completed = 0;
      this.failed = 0;
      for (const listener of this.listeners) listener.taken(sample, counts, paused);
    } catch (error) {
      this.logger.debug(`dashboard sample skipped: ${(error as Error).message}`);
      for (const listener of this.listeners) listener.skipped(error);
    } finally {
      this.schedule();
    }
  }

  /** Subscribe to every state event of the docket; retried on each tick until it holds. */
  private listen(): void {
    if (!this.options.throughput || this.listening || this.subscribing || this.stopped) return;
    this.subscribing = this.docket.inspector
      .stateEvents((event) => this.onState(event))
      .then(
        (unsubscribe) => {
          this.unsubscribe = unsubscribe;
          this.listening = true;
          if (this.stopped) void unsubscribe().catch(() => undefined);
        },
        (error: Error) => this.logger.debug(`dashboard state events: ${error.message}`),
      )
      .finally(() => (this.subscribing = undefined));
  }

  private onState(event: StateEvent): void {
    if (event.state === 'completed') this.completed++;
    if (event.state === 'failed') {
      this.failed++;
      this.failures.push({
        key: String(event.key),
        error: typeof event.error === 'string' ? event.error : '',
        at: Date.now(),
      });
    }
  }
}
