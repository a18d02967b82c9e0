import type { DocketStore, WorkerAbout } from '../store/docket-store.js';
import { within } from '../util/time.js';

/**
 * Re-write the task registry once this many heartbeat intervals have passed since the last
 * write (it expires if Redis lost it). Counted in time, not in beats: a beat comes an interval
 * after the previous one *ended*, so on a slow machine fifteen beats take longer than fifteen
 * intervals, and the registry (which lives `REGISTER_EVERY + missedHeartbeats` intervals)
 * expired under a worker still beating — it showed as live with no tasks.
 */
export const REGISTER_EVERY = 15;

/** What the heartbeat needs from the worker. */
export interface HeartbeatEnv {
  store: Pick<DocketStore, 'beat' | 'unregister' | 'connected'>;
  worker: string;
  heartbeatInterval: number;
  missedHeartbeats: number;
  tasks(): string[];
  /** What the worker tells about itself (host, pid, start, version, concurrency). */
  about: WorkerAbout;
  /** When the earliest future task is due, as each beat learns it. */
  nextDue(due: number): void;
  disrupted(error: unknown): void;
}

/** The worker's entry in the registry of live workers, refreshed every `heartbeatInterval`. */
export class Heartbeat {
  private timer?: NodeJS.Timeout;
  /** When the registry was last written (-Infinity: not yet, or a beat failed since). */
  private registeredAt = -Infinity;
  private stopped = true;
  /** Counts the starts: a beat of an earlier start that ends late changes nothing. */
  private run = 0;
  private inflight?: Promise<void>;

  constructor(private readonly env: HeartbeatEnv) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.registeredAt = -Infinity;
    this.inflight = this.beat(++this.run);
  }

  private async beat(run: number): Promise<void> {
    clearTimeout(this.timer);
    const { store, worker, heartbeatInterval, missedHeartbeats } = this.env;
    let registeredAt = this.registeredAt;
    try {
      const now = Date.now();
      // Now and then: prune dead workers and (re)write the task registry (also when the
      // clock went back: the registry's lifetime runs in Redis, whatever this clock says).
      const due = now - registeredAt >= heartbeatInterval * REGISTER_EVERY || now < registeredAt;
      const registry = due
        ? {
            tasks: this.env.tasks(),
            about: this.env.about,
            window: heartbeatInterval * missedHeartbeats,
            lifetime: heartbeatInterval * (REGISTER_EVERY + missedHeartbeats),
          }
        : undefined;
      this.env.nextDue(await store.beat(worker, now, registry));
      if (registry) registeredAt = now;
    } catch (error) {
      this.env.disrupted(error);
      registeredAt = -Infinity;
    }
    if (run !== this.run) return;
    this.registeredAt = registeredAt;
    if (!this.stopped) {
      this.timer = setTimeout(() => {
        this.inflight = this.beat(run);
      }, heartbeatInterval);
    }
  }

  /** Stop beating and remove this worker from the registry (best effort, bounded in time). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await within(this.inflight, 1_000);
    if (!this.env.store.connected) return;
    await within(this.env.store.unregister(this.env.worker), 1_000);
  }
}
