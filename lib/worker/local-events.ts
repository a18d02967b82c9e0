import type { Logger } from '@nestjs/common';
import type { DocketEventListener } from '../explorer/task-registry.js';
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
