import type { Logger } from '@nestjs/common';
import type { DocketEventListener, TaskRegistry } from '../explorer/task-registry.js';
import type { DocketEvent, DocketEventType } from '../interfaces/docket-event.interface.js';
import type { EndStatus, TaskEnd } from '../store/docket-store.js';

/** What an event says besides its type and execution. */
interface EventBase {
  worker: string;
  at: Date;
  durationMs?: number;
}

/**
 * The types of the events of an end that was written (`status` 'ok', or 'cancelled' when a
 * recorded cancel won): what the finish script published for it, in the same order.
 */
function endTypes(end: TaskEnd, status: EndStatus | undefined): readonly DocketEventType[] {
  if (status === 'cancelled') return ['cancelled'];
  if (status !== 'ok') return [];
  switch (end.outcome) {
    case 'completed':
      return ['completed'];
    case 'cancelled':
      return ['cancelled'];
    case 'retry':
      return ['retrying'];
    case 'failed':
      return ['failed'];
    case 'dead':
    case 'rejected':
      return ['failed', 'dead'];
  }
}

/** The event of `type` for an end; `attempt` is the one it tells of. */
function event(type: DocketEventType, end: TaskEnd, base: EventBase, attempt: number): DocketEvent {
  const out: DocketEvent = {
    type,
    key: end.key,
    taskName: end.taskName,
    attempt,
    worker: base.worker,
    at: base.at,
  };
  if (base.durationMs !== undefined) out.durationMs = base.durationMs;
  if (end.error && (type === 'failed' || type === 'dead' || type === 'retrying')) {
    out.error = end.error;
  }
  return out;
}

/**
 * What a worker tells its application's `@OnDocketEvent` methods: starts after its claims, ends
 * after its end writes. A start of a key whose previous attempt's end is being written waits
 * for that end to be told, so that `retrying` comes before the next `started`. Only the types
 * some listener wants are built; nothing is done when the application has no listener.
 */
export class LocalEvents {
  /** Keys whose end is being written, with the starts to tell after it ('started' wanted). */
  private readonly telling = new Map<string, DocketEvent[]>();

  constructor(
    private readonly registry: Pick<TaskRegistry, 'listeners' | 'wantedEvents'>,
    private readonly worker: string,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  /** A claimed message starts now. */
  started(message: { key: string; taskName: string; attempt: number }, now: number): void {
    if (!this.registry.wantedEvents.has('started')) return;
    const { key, taskName, attempt } = message;
    const event: DocketEvent = {
      type: 'started',
      key,
      taskName,
      attempt,
      worker: this.worker,
      at: new Date(now),
    };
    const waiting = this.telling.get(key);
    if (waiting) waiting.push(event);
    else this.emit(event);
  }

  /** The end of `key` is about to be written (a start of it waits: told only when wanted). */
  ending(key: string): void {
    if (this.registry.wantedEvents.has('started')) this.telling.set(key, []);
  }

  /** An end was written (or not: `status` undefined): its events, then the starts that waited. */
  ended(end: TaskEnd, status: EndStatus | undefined, startedAt?: number): void {
    const wanted = this.registry.wantedEvents;
    if (wanted.size === 0) return;
    let waiting: DocketEvent[] | undefined;
    if (this.telling.size > 0) {
      waiting = this.telling.get(end.key);
      this.telling.delete(end.key);
    }
    const types = endTypes(end, status).filter((type) => wanted.has(type));
    if (types.length > 0) {
      const now = Date.now();
      const base: EventBase = { worker: this.worker, at: new Date(now) };
      if (startedAt !== undefined) base.durationMs = now - startedAt;
      for (const type of types) {
        // `retrying` tells of the attempt that failed; the end carries the next one
        this.emit(event(type, end, base, type === 'retrying' ? end.attempt - 1 : end.attempt));
      }
    }
    if (waiting) for (const start of waiting) this.emit(start);
  }

  /**
   * Hand `event` to the `@OnDocketEvent` methods that want it. A listener that throws (or whose
   * promise rejects) is logged; the task never hears of it.
   */
  private emit(event: DocketEvent): void {
    for (const listener of this.registry.listeners) {
      if (!listener.types.has(event.type)) continue;
      if (listener.task !== undefined && listener.task !== event.taskName) continue;
      try {
        const returned = listener.call(event);
        if (returned && typeof (returned as Promise<unknown>).then === 'function') {
          (returned as Promise<unknown>).then(undefined, (error: unknown) =>
            this.failed(listener, event, error),
          );
        }
      } catch (error) {
        this.failed(listener, event, error);
      }
    }
  }

  private failed(listener: DocketEventListener, event: DocketEvent, error: unknown): void {
    this.logger.error(
      `@OnDocketEvent ${listener.source} threw on ${event.type} of ${event.taskName}(${event.key}): ${(error as Error)?.message ?? error}`,
    );
  }
}
