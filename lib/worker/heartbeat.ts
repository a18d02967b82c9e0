import type { DocketRuntime } from '../docket.runtime.js';
import { runScript } from '../store/scripts.js';
import { within } from '../util/time.js';

/** Re-write the task registry every this many beats (it expires if Redis lost it). */
const REGISTER_EVERY = 15;

/** The worker's entry in the registry of live workers, refreshed every `heartbeatInterval`. */
export class Heartbeat {
  private timer?: NodeJS.Timeout;
  private beats = 0;
  private stopped = true;
  private inflight?: Promise<void>;

  constructor(
    private readonly runtime: DocketRuntime,
    private readonly worker: string,
    private readonly tasks: () => string[],
    private readonly onDisruption: (error: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.beats = 0;
    this.inflight = this.beat();
  }

  private async beat(): Promise<void> {
    clearTimeout(this.timer);
    const { connection, keys, options } = this.runtime;
    try {
      await connection.ready();
      const now = Date.now();
      if (this.beats % REGISTER_EVERY === 0) {
        // Now and then: prune dead workers and (re)write the task registry.
        await runScript(
          connection.commands,
          'heartbeat',
          [keys.workers, keys.workerTasks(this.worker)],
          [
            this.worker,
            now,
            options.heartbeatInterval * options.missedHeartbeats,
            keys.prefix,
            options.heartbeatInterval * (REGISTER_EVERY + options.missedHeartbeats),
            ...this.tasks(),
          ],
        );
      } else {
        // Every other beat is one command: an idle worker must cost Redis next to nothing.
        await connection.commands.zadd(keys.workers, now, this.worker);
      }
      this.beats++;
    } catch (error) {
      this.onDisruption(error);
      this.beats = 0;
    }
    if (!this.stopped) {
      this.timer = setTimeout(() => {
        this.inflight = this.beat();
      }, options.heartbeatInterval);
    }
  }

  /** Stop beating and remove this worker from the registry (best effort, bounded in time). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await within(this.inflight, 1_000);
    const { connection, keys } = this.runtime;
    if (connection.commands.status !== 'ready') return;
    await within(
      runScript(
        connection.commands,
        'unregister',
        [keys.workers, keys.workerTasks(this.worker)],
        [this.worker, keys.prefix],
      ),
      1_000,
    );
  }
}
