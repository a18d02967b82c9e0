import type {
  ExecutionProgress,
  ExecutionState,
  ProgressEvent,
  StateEvent,
} from '../interfaces/execution.interface.js';

export const TERMINAL_STATES: ReadonlySet<ExecutionState> = new Set([
  'completed',
  'failed',
  'cancelled',
]);

const date = (ms: unknown): Date | undefined =>
  ms === undefined || ms === null || ms === '' ? undefined : new Date(Number(ms));

/** A state event as published by the scripts (times in epoch ms) made into its public form. */
export function parseStateEvent(text: string): StateEvent {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const event: StateEvent = {
    type: 'state',
    key: String(raw.key),
    state: raw.state as ExecutionState,
  };
  if (raw.when !== undefined) event.when = date(raw.when);
  if (raw.worker !== undefined) event.worker = String(raw.worker);
  if (raw.startedAt !== undefined) event.startedAt = date(raw.startedAt);
  if (raw.completedAt !== undefined) event.completedAt = date(raw.completedAt);
  if (raw.error !== undefined) event.error = String(raw.error);
  return event;
}

/** Progress from the fields of a progress hash (or an empty one). */
export function progressFromHash(hash: Record<string, string>): ExecutionProgress {
  return {
    current: hash.current === undefined ? null : Number(hash.current),
    total: hash.total === undefined ? 100 : Number(hash.total),
    message: hash.message ?? null,
    updatedAt: date(hash.updatedAt) ?? null,
  };
}

export function parseProgressEvent(text: string): ProgressEvent {
  const raw = JSON.parse(text) as Record<string, unknown>;
  return {
    type: 'progress',
    key: String(raw.key),
    current: raw.current === undefined ? null : Number(raw.current),
    total: Number(raw.total ?? 100),
    message: typeof raw.message === 'string' ? raw.message : null,
    updatedAt: date(raw.updatedAt) ?? null,
  };
}

/** Rebuild a stored error text `"<Name>: <message>"` as an `Error` of that name and message. */
export function rebuildError(text: string | undefined): Error {
  const raw = text ?? 'Error: task failed';
  const colon = raw.indexOf(': ');
  const name = colon > 0 && /^[\w$.]+$/.test(raw.slice(0, colon)) ? raw.slice(0, colon) : 'Error';
  const error = new Error(name === 'Error' && colon <= 0 ? raw : raw.slice(colon + 2));
  error.name = name;
  return error;
}

/** The stored form of an error: `"<Name>: <message>"`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name || 'Error'}: ${error.message}`;
  return `Error: ${String(error)}`;
}
