import { Injectable, Logger, type MessageEvent, type OnModuleDestroy } from '@nestjs/common';
import { Observable, type Subscriber, type Subscription } from 'rxjs';
import {
  LIVE_EVENTS_PER_MESSAGE,
  LIVE_HEARTBEAT,
  LIVE_MESSAGE_EVERY,
  LIVE_RECONNECT,
} from './dashboard.constants.js';
import { DashboardDocket } from './dashboard-docket.js';
import type { LiveHello, LiveSample, LiveUnavailable } from './dashboard-live.interface.js';
import { DashboardSampler } from './dashboard-sampler.js';
import { ChangeBatch } from './live-changes.js';
import { unavailableReason } from './redis-down.js';

/**
 * The pages' live streams (`api/live`). While one is open, the service follows the docket's
 * events (`DocketClient.events()`: the docket's scripts publish them only while some process
 * listens) through one subscription that every page shares, gathers them into a message of
 * changes at most every `LIVE_MESSAGE_EVERY` ms, and passes on each chart sample (or says
 * that the sample could not be read: Redis is away, and no change may come); a `ping`
 * keeps idle connections open through proxies. The last page to leave ends the subscription,
 * so the docket stops publishing for the dashboard (its listening key lapses); the
 * application's shutdown ends every stream, so the HTTP server can close.
 */
@Injectable()
export class DashboardLive implements OnModuleDestroy {
  private readonly logger = new Logger('DocketDashboard');
  private readonly streams = new Set<Subscriber<MessageEvent>>();
  private readonly batch = new ChangeBatch(LIVE_EVENTS_PER_MESSAGE);
  private events?: Subscription;
  private stopSamples?: () => void;
  private heartbeat?: NodeJS.Timeout;
  private flushing?: NodeJS.Timeout;
  private lastMessage = 0;
  /** Why the last sample was skipped, until one is taken again. */
  private unavailable: LiveUnavailable | null = null;
  private closed = false;

  constructor(
    private readonly docket: DashboardDocket,
    private readonly sampler: DashboardSampler,
  ) {}

  /** How many pages are connected now. */
  get connected(): number {
    return this.streams.size;
  }

  /**
   * The stream of one page: `hello`, then `changes`, `sample`, `unavailable` and `ping` until
   * it leaves.
   */
  stream(): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      if (this.closed) {
        subscriber.complete();
        return;
      }
      const hello: LiveHello = { docket: this.docket.client.name, heartbeat: LIVE_HEARTBEAT };
      subscriber.next({ type: 'hello', data: hello, retry: LIVE_RECONNECT });
      // a page that comes during an outage hears of it (the others were told once)
      if (this.unavailable) subscriber.next({ type: 'unavailable', data: this.unavailable });
      this.streams.add(subscriber);
      if (this.streams.size === 1) this.start();
      return () => {
        if (this.streams.delete(subscriber) && this.streams.size === 0) this.stop();
      };
    });
  }

  /** The application shuts down: end every stream (an open one would keep the server open). */
  onModuleDestroy(): void {
    this.closed = true;
    for (const stream of [...this.streams]) stream.complete();
    this.stop();
  }

  /** The first page came: follow the events and the samples, and beat. */
  private start(): void {
    this.follow();
    this.stopSamples = this.sampler.onSample({
      taken: (sample, counts, paused) => {
        this.unavailable = null;
        const data: LiveSample = { sample, counts, paused };
        this.send({ type: 'sample', data });
      },
      skipped: (error) => {
        // told once per outage: the pages read on their timers until a sample comes again
        if (this.unavailable) return;
        this.unavailable = { reason: unavailableReason(error) };
        this.send({ type: 'unavailable', data: this.unavailable });
      },
    });
    this.heartbeat = setInterval(() => {
      // a feed that failed (Redis away) is tried again while pages are open
      if (!this.events) this.follow();
      this.send({ type: 'ping', data: '' });
    }, LIVE_HEARTBEAT);
    this.heartbeat.unref();
  }

  /** The last page left (or the application closes): let go of everything. */
  private stop(): void {
    this.events?.unsubscribe();
    this.events = undefined;
    this.stopSamples?.();
    this.stopSamples = undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    clearTimeout(this.flushing);
    this.flushing = undefined;
    this.batch.take();
    this.unavailable = null;
  }

  private follow(): void {
    this.events = this.docket.client.events().subscribe({
      next: (event) => {
        this.batch.add(event);
        this.flushSoon();
      },
      error: (error: unknown) => {
        // the pages go on with their safety reads meanwhile
        this.logger.debug(`dashboard live events: ${(error as Error)?.message ?? error}`);
        this.events = undefined;
      },
    });
  }

  /** Send what was gathered now, or once `LIVE_MESSAGE_EVERY` has passed since the last. */
  private flushSoon(): void {
    if (this.flushing) return;
    const wait = Math.max(0, this.lastMessage + LIVE_MESSAGE_EVERY - Date.now());
    this.flushing = setTimeout(() => {
      this.flushing = undefined;
      const changes = this.batch.take();
      if (!changes) return;
      this.lastMessage = Date.now();
      this.send({ type: 'changes', data: changes });
    }, wait);
    this.flushing.unref();
  }

  private send(message: MessageEvent): void {
    // a copy each: a writer may number the message it is given
    for (const stream of this.streams) stream.next({ ...message });
  }
}
