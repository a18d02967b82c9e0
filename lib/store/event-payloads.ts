import type {
  ExecutionState,
  ProgressEvent,
  StateEvent,
} from '../interfaces/execution.interface.js';
import {
  DOCKET_EVENT_TYPES,
  type DocketEvent,
  type DocketEventType,
} from '../interfaces/docket-event.interface.js';
import { numberField } from './fields.js';
import { STATES } from './records.js';

const date = (value: unknown): Date | undefined => {
  const ms = numberField(value);
  return ms === undefined ? undefined : new Date(ms);
};

/** Thrown for a payload that is not an event of the docket (the channel warns and drops it). */
export class UnreadablePayloadError extends Error {}

function object(text: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UnreadablePayloadError('not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UnreadablePayloadError('not a JSON object');
  }
  return raw as Record<string, unknown>;
}

/** A state event as the scripts publish it (times in epoch ms), in its public form. */
export function parseStateEvent(text: string): StateEvent {
  const raw = object(text);
  if (raw.type !== 'state' || typeof raw.key !== 'string' || !STATES.has(String(raw.state))) {
    throw new UnreadablePayloadError('not a state event');
  }
  const event: StateEvent = { type: 'state', key: raw.key, state: raw.state as ExecutionState };
  if (raw.when !== undefined) event.when = date(raw.when);
  if (raw.worker !== undefined) event.worker = String(raw.worker);
  if (raw.startedAt !== undefined) event.startedAt = date(raw.startedAt);
  if (raw.completedAt !== undefined) event.completedAt = date(raw.completedAt);
  if (raw.error !== undefined) event.error = String(raw.error);
  return event;
}

/**
 * The events of one message of the events channel (a JSON array, see lua/includes/events.lua),
 * in their public form; an entry that is not an event is left out.
 */
export function parseDocketEvents(text: string): DocketEvent[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UnreadablePayloadError('not JSON');
  }
  const list = Array.isArray(raw) ? raw : [raw];
  const events: DocketEvent[] = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    if (!DOCKET_EVENT_TYPES.includes(e.type as DocketEventType) || typeof e.key !== 'string')
      continue;
    const event: DocketEvent = {
      type: e.type as DocketEventType,
      key: e.key,
      taskName: typeof e.taskName === 'string' ? e.taskName : '',
      attempt: numberField(e.attempt) ?? 1,
      at: date(e.at) ?? new Date(),
    };
    if (typeof e.worker === 'string' && e.worker !== '') event.worker = e.worker;
    if (typeof e.error === 'string') event.error = e.error;
    const duration = numberField(e.durationMs);
    if (duration !== undefined) event.durationMs = duration;
    events.push(event);
  }
  return events;
}

/** A progress event as the progress script publishes it, in its public form. */
export function parseProgressEvent(text: string): ProgressEvent {
  const raw = object(text);
  if (raw.type !== 'progress' || typeof raw.key !== 'string') {
    throw new UnreadablePayloadError('not a progress event');
  }
  return {
    type: 'progress',
    key: raw.key,
    current: numberField(raw.current) ?? null,
    total: numberField(raw.total) ?? null,
    message: typeof raw.message === 'string' ? raw.message : null,
    updatedAt: date(raw.updatedAt) ?? null,
  };
}
