import type { HistoryRecord } from '../docket-store.js';
import { fieldsToRecord } from '../fields.js';
import { runRecord } from '../records.js';
import { defineScript } from './script.js';

/** What a page of the history is filtered by (see history-1.lua). */
export interface HistoryFilter {
  states: readonly ('completed' | 'failed' | 'cancelled')[];
  /** Only this task (exact name). */
  task?: string;
  /** A key prefix, or text in the task name, the stored arguments or the error, case aside. */
  search?: string;
  /** Whether the search looks into the arguments. */
  searchArguments: boolean;
  offset: number;
  limit: number;
}

/** history-1.lua: one page of the finished executions a dashboard keeps, and their total. */
export const HISTORY = defineScript<HistoryFilter, HistoryRecord>({
  file: 'history-1',
  keys: (k) => [k.history],
  args: (k, f) => [
    k.prefix,
    f.states.join(','),
    f.task ?? '',
    (f.search ?? '').toLowerCase(),
    f.offset,
    f.limit,
    f.searchArguments ? '1' : '0',
  ],
  decode: (reply) => {
    const [total, rows] = reply as [number, (string | null)[][]];
    const runs: HistoryRecord['runs'] = [];
    for (const row of rows) {
      const [key, state, task, args, when, attempt, worker, startedAt, completedAt, error] = row;
      const run = runRecord(
        fieldsToRecord([
          ...['state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt],
          ...['worker', worker, 'startedAt', startedAt, 'completedAt', completedAt],
          ...['error', error],
        ]),
      );
      if (run && key !== null) runs.push({ ...run, key });
    }
    return { total: Number(total), runs };
  },
});
