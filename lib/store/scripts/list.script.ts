import type { TaskListRecord } from '../docket-store.js';
import { fieldsToRecord } from '../fields.js';
import { runRecord } from '../records.js';
import { defineScript } from './script.js';

/** What a page of the live executions is filtered by (see list-tasks-2.lua). */
export interface TaskListFilter {
  states: readonly ('running' | 'queued' | 'scheduled')[];
  /** Only this task (exact name). */
  task?: string;
  /** A key prefix, or text in the task name or the stored arguments, case aside. */
  search?: string;
  offset: number;
  limit: number;
}

/** list-tasks-2.lua: one page of the live executions that pass a filter, and their total. */
export const LIST_TASKS = defineScript<TaskListFilter, TaskListRecord>({
  file: 'list-tasks-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, f) => [
    k.prefix,
    f.states.join(','),
    f.task ?? '',
    (f.search ?? '').toLowerCase(),
    f.offset,
    f.limit,
  ],
  decode: (reply) => {
    const [total, rows] = reply as [number, unknown[][]];
    const runs: TaskListRecord['runs'] = [];
    for (const row of rows) {
      const [key, state, task, args, when, attempt, worker, startedAt, generation] = row as (
        string | null
      )[];
      const open = row[9] as string[] | undefined;
      const run = runRecord(
        fieldsToRecord([
          ...['state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt],
          ...['worker', worker, 'startedAt', startedAt, 'generation', generation],
        ]),
      );
      if (run && key !== null) {
        runs.push(open && open.length > 0 ? { ...run, key, waitingFor: open } : { ...run, key });
      }
    }
    return { total: Number(total), runs };
  },
});
