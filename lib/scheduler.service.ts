import { Injectable, Logger } from '@nestjs/common';
import { DocketRuntime } from './docket.runtime.js';
import { runScript } from './store/scripts.js';

const BATCH = 1_000;

/**
 * Moves future tasks to the stream when they are due. It sleeps until the earliest due task
 * and is woken early by the announcement that an earlier task was scheduled; only while it
 * cannot hear announcements (its subscriber reconnecting) does it look every
 * `schedulingResolution` ms.
 */
@Injectable()
export class SchedulerService {
  private readonly logger = new Logger('DocketScheduler');
  private running = false;
  private timer?: NodeJS.Timeout;
  private wakeAt = Infinity;
  private wake?: () => void;
  /** A wake-up that came while the loop was not asleep. */
  private woken = false;
  private loop?: Promise<void>;
  private undo: (() => unknown)[] = [];
  /** Called on each Redis error, for the worker's disruption count. */
  onDisruption: (error: unknown) => void = () => undefined;

  constructor(private readonly runtime: DocketRuntime) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const { subscriptions, keys } = this.runtime;
    try {
      this.undo.push(
        await subscriptions.subscribe(keys.wakeChannel, (due) => this.wakeBy(Number(due))),
      );
    } catch (error) {
      this.onDisruption(error);
    }
    this.undo.push(subscriptions.onReconnect(() => this.wakeBy(0)));
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wakeBy(0);
    await this.loop;
    for (const undo of this.undo.splice(0)) await undo();
  }

  /** Wake now if `due` is before the planned wake-up. */
  private wakeBy(due: number): void {
    if (!this.wake) this.woken = true;
    else if (due < this.wakeAt) this.wake();
  }

  private async run(): Promise<void> {
    const resolution = this.resolution;
    while (this.running) {
      let next: number;
      try {
        next = await this.moveDue();
      } catch (error) {
        this.onDisruption(error);
        this.logger.warn(`moving due tasks failed: ${(error as Error).message}`);
        next =
          Date.now() +
          (this.runtime.options.worker ? this.runtime.options.worker.reconnectionDelay : 1_000);
      }
      if (!this.running) break;
      if (!this.runtime.subscriptions.listening) next = Math.min(next, Date.now() + resolution);
      await this.sleepUntil(next);
    }
  }

  private get resolution(): number {
    const worker = this.runtime.options.worker;
    return worker ? worker.schedulingResolution : 250;
  }

  /** Move every due task; returns when the next one is due (Infinity: none). */
  async moveDue(): Promise<number> {
    const { connection, keys } = this.runtime;
    await connection.ready();
    for (;;) {
      const [moved, next] = await runScript<[number, string]>(
        connection.commands,
        'moveDue',
        [keys.queue, keys.stream],
        [Date.now(), keys.prefix, BATCH],
      );
      if (moved < BATCH) return next === '-1' ? Infinity : Number(next);
    }
  }

  private sleepUntil(at: number): Promise<void> {
    if (this.woken || !this.running) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeAt = at;
      const done = () => {
        clearTimeout(this.timer);
        this.wake = undefined;
        this.wakeAt = Infinity;
        resolve();
      };
      this.wake = done;
      // Timers cannot wait longer than ~24 days; an hourly look is free.
      const wait = Math.min(at - Date.now(), 3_600_000);
      this.timer = setTimeout(done, Math.max(0, wait));
    });
  }
}
