import { Observable } from 'rxjs';
import type { TaskRegistry } from '../explorer/task-registry.js';
import {
  DOCKET_EVENT_TYPES,
  type DocketEvent,
  type DocketEventFilter,
  type DocketEventType,
} from '../interfaces/docket-event.interface.js';
import type { DocketStore } from '../store/docket-store.js';

/** How long the scripts publish events after a listener's last renewal. */
const LISTEN_TTL = 60_000;
/** How often a process with listeners renews it. */
const RENEW_EVERY = 20_000;

/**
 * The docket's events as observables: while one is subscribed, this process keeps the
 * docket's scripts publishing events (a key with a time to live, renewed), and reads them from
 * the events channel. Best effort and live only: what happens while nobody listens, or while
 * the subscriber is reconnecting, is not replayed.
 */
export class EventFeed {
  private listeners = 0;
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: DocketStore,
    private readonly registry: TaskRegistry,
    private readonly warn: (message: string) => void,
  ) {}

  observe(filter: DocketEventFilter = {}): Observable<DocketEvent> {
    const task =
      filter.task === undefined ? undefined : this.registry.resolveName(filter.task, false);
    const types = filter.types === undefined ? undefined : checkTypes(filter.types);
    return new Observable<DocketEvent>((subscriber) => {
      let closed = false;
      let undo: (() => Promise<void>) | undefined;
      this.retain();
      this.store
        .onEvents((event) => {
          if (task !== undefined && event.taskName !== task) return;
          if (types !== undefined && !types.has(event.type)) return;
          subscriber.next(event);
        })
        .then(
          (unsubscribe) => {
            if (closed) void unsubscribe().catch(() => undefined);
            else undo = unsubscribe;
          },
          (error: unknown) => subscriber.error(error),
        );
      return () => {
        closed = true;
        this.release();
        void undo?.().catch(() => undefined);
      };
    });
  }

  /** Stop renewing (the application closes). */
  close(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  private retain(): void {
    if (this.listeners++ > 0) return;
    this.renew();
    this.renewal = setInterval(() => this.renew(), RENEW_EVERY);
    this.renewal.unref();
  }

  private release(): void {
    if (--this.listeners > 0) return;
    this.close();
  }

  private renew(): void {
    this.store
      .listenForEvents(LISTEN_TTL)
      .catch((error: unknown) =>
        this.warn(`events: cannot turn them on: ${(error as Error)?.message ?? error}`),
      );
  }
}

function checkTypes(types: unknown): Set<DocketEventType> {
  if (!Array.isArray(types)) {
    throw new TypeError(`events: types is an array of event types, not ${typeof types}`);
  }
  for (const type of types) {
    if (!DOCKET_EVENT_TYPES.includes(type as DocketEventType)) {
      throw new TypeError(
        `events: "${String(type)}" is not an event type (one of ${DOCKET_EVENT_TYPES.join(', ')})`,
      );
    }
  }
  return new Set(types as DocketEventType[]);
}
