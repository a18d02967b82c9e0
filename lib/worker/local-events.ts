import type { Logger } from '@nestjs/common';
import type { DocketEventListener, TaskRegistry } from '../explorer/task-registry.js';
import type { DocketEvent, DocketEventType } from '../interfaces/docket-event.interface.js';
import type { EndStatus, TaskEnd } from '../store/docket-store.js';

/**
 * Hand `event` to the `@OnDocketEvent` methods that want it. A listener that throws (or whose
 * promise rejects) is logged; the task never hears of it.
 */
export function emitLocal(
  listeners: readonly DocketEventListener[],
  event: DocketEvent,
  logger: Pick<Logger, 'error'>,
): void {
  for (const listener of listeners) {
    if (!listener.types.has(event.type)) continue;
    if (listener.task !== undefined && listener.task !== event.taskName) continue;
    const failed = (error: unknown) =>
      logger.error(
        `@OnDocketEvent ${listener.source} threw on ${event.type} of ${event.taskName}(${event.key}): ${(error as Error)?.message ?? error}`,
      );
    try {
      const returned = listener.call(event);
      if (returned && typeof (returned as Promise<unknown>).then === 'function') {
        (returned as Promise<unknown>).then(undefined, failed);
      }
    } catch (error) {
      failed(error);
    }
  }
}

/**
 * The events of an end that was written (`status` 'ok', or 'cancelled' when a recorded cancel
 * won): what the finish script published for it, in the same order.
 */
export function endEvents(
  end: TaskEnd,
  status: EndStatus | undefined,
  base: { worker: string; at: Date; durationMs?: number },
): DocketEvent[] {
  if (status === 'cancelled') return [event('cancelled', end, base)];
  if (status !== 'ok') return [];
  switch (end.outcome) {
    case 'completed':
      return [event('completed', end, base)];
    case 'cancelled':
      return [event('cancelled', end, base)];
    case 'retry':
      return [event('retrying', { ...end, attempt: end.attempt - 1 }, base)];
    case 'failed':
      return [event('failed', end, base)];
    case 'dead':
    case 'rejected':
      return [event('failed', end, base), event('dead', end, base)];
  }
}

function event(
  type: DocketEventType,
  end: TaskEnd,
  base: { worker: string; at: Date; durationMs?: number },
): DocketEvent {
  const out: DocketEvent = {
    type,
    key: end.key,
    taskName: end.taskName,
    attempt: end.attempt,
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
 * for that end to be told, so that `retrying` comes before the next `started`. Nothing is
 * done when the application has no listener.
 */
export class LocalEvents {
  /** Keys whose end is being written, with the starts to tell after it. */
  private readonly telling = new Map<string, DocketEvent[]>();

  constructor(
    private readonly registry: Pick<TaskRegistry, 'listeners'>,
    private readonly worker: string,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  /** A claimed message starts now. */
  started(message: { key: string; taskName: string; attempt: number }, now: number): void {
    if (this.registry.listeners.length === 0) return;
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
    else emitLocal(this.registry.listeners, event, this.logger);
  }

  /** The end of `key` is about to be written. */
  ending(key: string): void {
    if (this.registry.listeners.length > 0) this.telling.set(key, []);
  }

  /** An end was written (or not: `status` undefined): its events, then the starts that waited. */
  ended(end: TaskEnd, status: EndStatus | undefined, startedAt?: number): void {
    const { listeners } = this.registry;
    const waiting = this.telling.get(end.key) ?? [];
    this.telling.delete(end.key);
    if (listeners.length === 0) return;
    const now = Date.now();
    const base = { worker: this.worker, at: new Date(now) };
    const timed = startedAt === undefined ? base : { ...base, durationMs: now - startedAt };
    for (const event of [...endEvents(end, status, timed), ...waiting]) {
      emitLocal(listeners, event, this.logger);
    }
  }
}
