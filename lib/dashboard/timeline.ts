import type { Execution } from '../public-api.js';
import type { AttemptView, TimelineEntry } from './dashboard-views.interface.js';

/** A UUIDv7 (the default key): its first 48 bits are the time it was made, in epoch ms. */
const UUID_V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** When a default key (a UUIDv7) was made, or null for a key of another form. */
export function keyTime(key: string): Date | null {
  const match = UUID_V7.exec(key);
  if (!match) return null;
  const ms = Number.parseInt(match[1] + match[2], 16);
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date : null;
}

function iso(date: Date | undefined): string | null {
  return date && Number.isFinite(date.getTime()) ? date.toISOString() : null;
}

/** The earlier attempts of an execution as the detail page shows them. */
export function attemptViews(execution: Execution): AttemptView[] {
  return execution.earlierAttempts.map((a) => ({
    attempt: a.attempt,
    outcome: a.outcome,
    worker: a.worker ?? null,
    startedAt: iso(a.startedAt),
    endedAt: iso(a.endedAt),
    error: a.error ?? null,
    errorStack: a.errorStack ?? null,
    retryAt: iso(a.retryAt),
  }));
}

/**
 * An execution's life in order, from what the docket records: when its key was made (a
 * default UUIDv7 key only: the time of an add is not stored), each earlier attempt's due time,
 * start and end, when the current attempt is (or was) due, its start and its end.
 */
export function timelineOf(execution: Execution): TimelineEntry[] {
  const out: { at: Date; entry: Omit<TimelineEntry, 'at'> }[] = [];
  const push = (at: Date | undefined, entry: Omit<TimelineEntry, 'at'>) => {
    if (at && Number.isFinite(at.getTime())) out.push({ at, entry });
  };
  const made = keyTime(execution.key);
  if (made) push(made, { what: 'added', attempt: null, detail: 'the time in its key' });
  // an attempt's due time once, before its first start (a lost start shares it)
  let last: number | null = null;
  for (const a of execution.earlierAttempts) {
    if (a.attempt !== last) push(a.dueAt, { what: 'due', attempt: a.attempt, detail: null });
    last = a.attempt;
    push(a.startedAt, { what: 'started', attempt: a.attempt, detail: a.worker ?? null });
    if (a.outcome === 'lost') {
      push(a.endedAt, {
        what: 'lost',
        attempt: a.attempt,
        detail: `${a.worker ?? 'its worker'} went silent`,
      });
    } else {
      const retry = a.retryAt ? `; retry due ${a.retryAt.toISOString()}` : '';
      push(a.endedAt, { what: 'failed', attempt: a.attempt, detail: `${a.error ?? ''}${retry}` });
    }
  }
  const { attempt, state } = execution;
  if (attempt !== last) push(execution.when, { what: 'due', attempt, detail: null });
  push(execution.startedAt, { what: 'started', attempt, detail: execution.worker ?? null });
  if (state === 'completed' || state === 'failed' || state === 'cancelled') {
    push(execution.completedAt, { what: state, attempt, detail: execution.error ?? null });
  }
  // in the order of its life, not sorted by time: a retry is due from the moment the worker
  // decided it, a little before its failure was recorded
  return out.map(({ at, entry }) => ({ at: at.toISOString(), ...entry }));
}
