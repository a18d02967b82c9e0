import type {
  ExecutionState,
  ProgressEvent,
  StateEvent,
} from '../interfaces/execution.interface.js';
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
