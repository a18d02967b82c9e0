import { Observable, type Subscriber } from 'rxjs';
import type { TaskRegistry } from '../explorer/task-registry.js';
import type {
  DocketEvent,
  DocketEventFilter,
  DocketEventType,
} from '../interfaces/docket-event.interface.js';
import { checkEventTypes } from '../interfaces/event-types.js';
import type { DocketStore, Unsubscribe } from '../store/docket-store.js';

/** How long the scripts publish events after a listener's last renewal. */
const LISTEN_TTL = 60_000;
/** How often a process with listeners renews it. */
const RENEW_EVERY = 20_000;

/** One subscriber of `events()`, with its filter. */
interface Listener {
  task?: string;
  types?: ReadonlySet<DocketEventType>;
  subscriber: Subscriber<DocketEvent>;
}

/**
 * The docket's events as observables: while one is subscribed, this process keeps the
 * docket's scripts publishing events (a key with a time to live, renewed), and reads them from
 * the events channel, through one subscription that every observer shares. Best effort and
 * live only: what happens while nobody listens, or while the subscriber is reconnecting, is
 * not replayed.
 */
export class EventFeed {
  private readonly listeners = new Set<Listener>();
  private renewal: NodeJS.Timeout | undefined;
  /** The subscription to the events channel, held while there are listeners. */
  private subscription: Promise<Unsubscribe> | undefined;

  constructor(
    private readonly store: DocketStore,
    private readonly registry: TaskRegistry,
    private readonly warn: (message: string) => void,
  ) {}

  observe(filter: DocketEventFilter = {}): Observable<DocketEvent> {
    const task =
      filter.task === undefined ? undefined : this.registry.resolveName(filter.task, false);
    const types =
      filter.types === undefined ? undefined : new Set(checkEventTypes(filter.types, 'events'));
    return new Observable<DocketEvent>((subscriber) => {
      const listener: Listener = { task, types, subscriber };
      this.listeners.add(listener);
      if (this.listeners.size === 1) this.open();
      return () => {
        if (this.listeners.delete(listener) && this.listeners.size === 0) this.close();
      };
    });
  }

  /**
   * Stop renewing and reading (the application closes, or the last listener left); a later
   * `observe` starts again.
   */
  close(): void {
    this.listeners.clear();
    clearInterval(this.renewal);
    this.renewal = undefined;
    const subscription = this.subscription;
    this.subscription = undefined;
    void subscription?.then((unsubscribe) => unsubscribe()).catch(() => undefined);
  }

  /** The first listener came: turn the events on and subscribe to them. */
  private open(): void {
    this.renew();
    this.renewal = setInterval(() => this.renew(), RENEW_EVERY);
    this.renewal.unref();
    const subscription = this.store.onEvents((event) => this.fanOut(event));
    this.subscription = subscription;
    subscription.catch((error: unknown) => {
      if (this.subscription !== subscription) return;
      // every listener shares the failed subscription: each hears the error (and leaves)
      for (const { subscriber } of [...this.listeners]) subscriber.error(error);
    });
  }

  private fanOut(event: DocketEvent): void {
    for (const { task, types, subscriber } of this.listeners) {
      if (task !== undefined && event.taskName !== task) continue;
      if (types !== undefined && !types.has(event.type)) continue;
      subscriber.next(event);
    }
  }

  private renew(): void {
    this.store
      .listenForEvents(LISTEN_TTL)
      .catch((error: unknown) =>
        this.warn(`events: cannot turn them on: ${(error as Error)?.message ?? error}`),
      );
  }
}
