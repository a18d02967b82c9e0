import { Logger } from '@nestjs/common';
import type { DeliveryReader, DocketStore, StreamEntry } from '../store/docket-store.js';
import { sleep, within } from '../util/time.js';
import type { Dispatcher } from './dispatcher.js';
import type { WorkerHealth } from './worker-health.js';

/** What the delivery loop needs from the worker. */
export interface DeliveryLoopEnv {
  consumer: string;
  redeliveryTimeout: number;
  minimumCheckInterval: number;
  reconnectionDelay: number;
  store: Pick<DocketStore, 'autoclaim' | 'isEmpty'>;
  reader: DeliveryReader;
  dispatcher: Pick<Dispatcher, 'beginRead' | 'endRead' | 'idle'>;
  health: WorkerHealth;
  /** Ends wait to be written by a call that reads along: that call reads, not the loop. */
  readGoesAlong(): boolean;
}

/**
 * The delivery loop: reads as many messages as the worker has room for (a blocking read that
 * a freed slot, new work or shutdown ends at once), unless ends wait to be written (their call
 * reads along instead, so a busy worker saves a call per batch), takes over messages whose
 * worker stopped renewing them for `redeliveryTimeout`, and hands both to the dispatcher. Claims run beside
 * the loop, so the next read is on its way while a batch is claimed. It never dies from an
 * error: it logs, waits `reconnectionDelay` and goes on.
 */
export class DeliveryLoop {
  private readonly logger = new Logger('DocketWorker');
  private running = false;
  private loop?: Promise<void>;
  private stopSignal = new AbortController();
  private roomWaiter?: () => void;
  private finishWaiters: (() => void)[] = [];
  private lastAutoclaim = 0;
  private autoclaimCursor = '0-0';
  /** When the loop last took its own turn to read (it leaves reads to ends for a while). */
  private lastTurn = 0;

  constructor(private readonly env: DeliveryLoopEnv) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopSignal = new AbortController();
    this.loop = this.run();
  }

  /** Stop reading; resolves when the loop has ended (bounded by one read's time). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopSignal.abort();
    this.roomWaiter?.();
    this.env.reader.interrupt();
    await within(this.loop, this.env.minimumCheckInterval + 1_000);
  }

  /**
   * The loop wants the read turn: it has not had one for `minimumCheckInterval` (a poll of its
   * own, which also takes over stalled messages when that is due), so claims and ends do not
   * read along until it had its turn.
   */
  wantsTurn(): boolean {
    return this.running && Date.now() - this.lastTurn >= this.env.minimumCheckInterval;
  }

  /** A slot freed or a claim answered: a loop waiting for room looks again. */
  roomChanged(): void {
    this.roomWaiter?.();
  }

  /** The worker became idle: a caller waiting for the end of the work gets an answer soon. */
  becameIdle(): void {
    if (this.finishWaiters.length > 0) this.env.reader.interrupt();
  }

  /** Resolves once a read finds nothing while the stream and queue are empty and nothing runs. */
  untilFinished(): Promise<void> {
    return new Promise((resolve) => {
      this.finishWaiters.push(resolve);
      this.env.reader.interrupt();
    });
  }

  /** Resolve every `untilFinished` now (the worker closes). */
  releaseWaiters(): void {
    for (const resolve of this.finishWaiters.splice(0)) resolve();
  }

  get waiting(): boolean {
    return this.finishWaiters.length > 0;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.step();
      } catch (error) {
        if (!this.running) break;
        // a loop that handles an outage is alive; readiness reports Redis
        this.env.health.waiting(error);
        this.logger.warn(
          `delivery loop: ${(error as Error)?.message ?? error}; retrying in ${this.env.reconnectionDelay}ms`,
        );
        await sleep(this.env.reconnectionDelay, this.stopSignal.signal);
      }
    }
  }

  /** One turn: read as many messages as there is room for. */
  private async step(): Promise<void> {
    const { dispatcher, health } = this.env;
    // The write of those ends calls `roomChanged` when it is done. The loop still takes a turn
    // of its own every `minimumCheckInterval`: a poll, a takeover of stalled messages when
    // that is due, and an outage met and reported by the loop itself.
    const now = Date.now();
    const left = this.lastTurn + this.env.minimumCheckInterval - now;
    if (left > 0 && this.env.readGoesAlong()) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.roomWaiter = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
      this.roomWaiter = undefined;
      return;
    }
    const room = dispatcher.beginRead();
    if (room <= 0) {
      await new Promise<void>((resolve) => (this.roomWaiter = resolve));
      this.roomWaiter = undefined;
      return;
    }
    this.lastTurn = now;
    let entries: StreamEntry[] = [];
    let redelivered = false;
    try {
      // a redelivered message runs alone: one at a time
      entries = await this.autoclaim(1);
      redelivered = entries.length > 0;
      if (!redelivered) {
        entries = this.running
          ? await this.env.reader.read(room, this.env.minimumCheckInterval)
          : [];
      }
    } finally {
      dispatcher.endRead(entries, redelivered, this.env.reader.lanes);
    }
    health.polled();
    if (
      entries.length === 0 &&
      this.finishWaiters.length > 0 &&
      dispatcher.idle() &&
      (await this.env.store.isEmpty())
    ) {
      // Only a read that found nothing (or was interrupted) asks whether all work is done.
      this.releaseWaiters();
    }
  }

  /** Take over messages whose worker stopped renewing them for `redeliveryTimeout`. */
  private async autoclaim(count: number): Promise<StreamEntry[]> {
    const { redeliveryTimeout } = this.env;
    const now = Date.now();
    if (now - this.lastAutoclaim < Math.min(redeliveryTimeout / 4, 30_000)) return [];
    this.lastAutoclaim = now;
    const { cursor, entries } = await this.env.store.autoclaim(
      this.env.consumer,
      redeliveryTimeout,
      this.autoclaimCursor,
      count,
    );
    this.autoclaimCursor = cursor;
    if (cursor !== '0-0') this.lastAutoclaim = 0;
    if (entries.length > 0) {
      this.logger.warn(
        `redelivery: taking over ${entries.length} task(s) whose worker stopped renewing them for ${redeliveryTimeout} ms`,
      );
    }
    return entries;
  }
}
