import type { ExecutionState } from '../interfaces/execution.interface.js';
import type { ProgressRecord, RunRecord } from './docket-store.js';
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
    after: keysField(hash.after),
  };
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
