import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ResolvedDocketOptions } from './config/resolve-options.js';
import { DOCKET_OPTIONS, DOCKET_STORE } from './docket.tokens.js';
import type { DocketStore, Unsubscribe } from './store/docket-store.js';

/** Most due tasks moved in one call (the rest in the next, at once). */
const BATCH = 1_000;

/** Timers cannot wait longer than ~24 days; an hourly look is free. */
const LONGEST_SLEEP = 3_600_000;

/**
 * Moves future tasks to the stream when they are due. It sleeps until the earliest due task
 * and is woken early by the announcement that an earlier task was scheduled; while it cannot
 * hear announcements (its subscriber reconnecting) it looks every `schedulingResolution` ms.
 * The worker starts and stops it.
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
  private undo: (Unsubscribe | (() => unknown))[] = [];
  private disrupted: (error: unknown) => void = () => undefined;

  /** @internal Nest injects the engine's parts; applications get this class from Nest. */
  constructor(
    @Inject(DOCKET_OPTIONS) private readonly options: ResolvedDocketOptions,
    @Inject(DOCKET_STORE) private readonly store: DocketStore,
  ) {}

  /** @internal Start the loop; `disrupted` hears each Redis error it meets. */
  async start(disrupted: (error: unknown) => void = () => undefined): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.disrupted = disrupted;
    try {
      this.undo.push(await this.store.onWake((due) => this.wakeBy(due)));
    } catch (error) {
      this.disrupted(error);
    }
    this.undo.push(this.store.onReconnect(() => this.wakeBy(0)));
    this.loop = this.run();
  }

  /** @internal Stop the loop; resolves once it has ended. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wakeBy(0);
    await this.loop;
    for (const undo of this.undo.splice(0)) await undo();
  }

  /** @internal A task is due at `due` (the heartbeat read the queue): wake then, not later. */
  notice(due: number): void {
    if (this.running && Number.isFinite(due)) this.wakeBy(due);
  }

  /** Wake now if `due` is before the planned wake-up. */
  private wakeBy(due: number): void {
    if (!this.wake) this.woken = true;
    else if (due < this.wakeAt) this.wake();
  }

  private async run(): Promise<void> {
    const worker = this.options.worker;
    const resolution = worker ? worker.schedulingResolution : 250;
    const retryDelay = worker ? worker.reconnectionDelay : 1_000;
    while (this.running) {
      let next: number;
      try {
        next = await this.moveDue();
      } catch (error) {
        this.disrupted(error);
        this.logger.warn(`moving due tasks failed: ${(error as Error).message}`);
        next = Date.now() + retryDelay;
      }
      if (!this.running) break;
      if (!this.store.listening) next = Math.min(next, Date.now() + resolution);
      await this.sleepUntil(next);
    }
  }

  /** @internal Move every due task; returns when the next one is due (Infinity: none). */
  async moveDue(): Promise<number> {
    for (;;) {
      const { moved, next } = await this.store.moveDue(Date.now(), BATCH, this.options);
      if (moved < BATCH) return next;
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
      this.timer = setTimeout(done, Math.max(0, Math.min(at - Date.now(), LONGEST_SLEEP)));
    });
  }
}
