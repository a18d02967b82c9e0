import type { ExecutionState } from '../interfaces/execution.interface.js';
import type { AttemptRecord, ProgressRecord, RunRecord } from './read-records.js';
import { numberField } from './fields.js';

/** Every state an execution can be in. */
export const STATES: ReadonlySet<string> = new Set([
  'scheduled',
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
]);

/** A runs hash as a record; null when it holds no state. */
export function runRecord(hash: Record<string, string>): RunRecord | null {
  if (!STATES.has(hash.state)) return null;
  return {
    state: hash.state as ExecutionState,
    taskName: hash.task ?? '',
    args: hash.args ?? '[]',
    when: numberField(hash.when) ?? 0,
    attempt: numberField(hash.attempt) ?? 1,
    generation: numberField(hash.generation) ?? 0,
    worker: hash.worker || undefined,
    startedAt: numberField(hash.startedAt),
    completedAt: numberField(hash.completedAt),
    error: hash.error || undefined,
    stack: hash.stack || undefined,
    attempts: attemptsField(hash.attempts),
    after: keysField(hash.after),
  };
}

/**
 * The runs field `attempts` (one JSON object a line, see lua/includes/attempts.lua) as
 * records; a line that cannot be read is left out.
 */
export function attemptsField(text: string | undefined): AttemptRecord[] | undefined {
  if (!text) return undefined;
  const out: AttemptRecord[] = [];
  for (const line of text.split('\n')) {
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    const attempt = numberField(e.attempt);
    const endedAt = numberField(e.endedAt);
    if (attempt === undefined || endedAt === undefined) continue;
    if (e.outcome !== 'failed' && e.outcome !== 'lost') continue;
    out.push({
      attempt,
      outcome: e.outcome,
      endedAt,
      worker: typeof e.worker === 'string' ? e.worker : undefined,
      dueAt: numberField(e.dueAt),
      startedAt: numberField(e.startedAt),
      error: typeof e.error === 'string' ? e.error : undefined,
      stack: typeof e.stack === 'string' ? e.stack : undefined,
      retryAt: numberField(e.retryAt),
    });
  }
  return out.length > 0 ? out : undefined;
}

/** A JSON array of keys as stored (runs field `after`); undefined when absent or unreadable. */
export function keysField(text: string | undefined): string[] | undefined {
  if (!text) return undefined;
  try {
    const keys: unknown = JSON.parse(text);
    return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : undefined;
  } catch {
    return undefined;
  }
}

/** A progress hash as a record (absent fields null; total 100 once it counts without one). */
export function progressRecord(hash: Record<string, string>): ProgressRecord {
  return {
    current: numberField(hash.current) ?? null,
    total: numberField(hash.total) ?? (hash.current === undefined ? null : 100),
    message: hash.message ?? null,
    updatedAt: numberField(hash.updatedAt) ?? null,
  };
}
