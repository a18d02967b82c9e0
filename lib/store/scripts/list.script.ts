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
  /** The most places one call reads for a filtered list (LIST_PIECE unless given: for tests). */
  piece?: number;
}

/**
 * The most places of executions one call of list-tasks-2.lua reads for a filtered list: a list
 * of more is read in several calls, so that one holds Redis for milliseconds, not for the
 * whole docket.
 */
export const LIST_PIECE = 5_000;

/** One call of list-tasks-2.lua: the filter, and for a filtered list where the piece begins. */
export interface TaskListPiece extends TaskListFilter {
  /** '' at the start, else the cursor the previous piece returned. */
  cursor: string;
  /** The most places this piece reads (a filtered list). */
  budget: number;
}

/** What one call answers: how many passed in its piece, its rows, and where to go on. */
export interface TaskListPieceRecord extends TaskListRecord {
  /** '' when the list is read to its end. */
  cursor: string;
}

/**
 * list-tasks-2.lua: one page of the live executions that pass a filter, and their total (an
 * unfiltered list in one call; a filtered one in pieces, see LIST_PIECE).
 */
export const LIST_TASKS = defineScript<TaskListPiece, TaskListPieceRecord>({
  file: 'list-tasks-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, f) => [
    k.prefix,
    f.states.join(','),
    f.task ?? '',
    (f.search ?? '').toLowerCase(),
    f.offset,
    f.limit,
    f.cursor,
    f.budget,
  ],
  decode: (reply) => {
    const [total, rows, cursor] = reply as [number, unknown[][], string];
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
    return { total: Number(total), runs, cursor: String(cursor ?? '') };
  },
});
