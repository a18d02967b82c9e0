import type {
  DependenciesRecord,
  Depths,
  ProgressRecord,
  RunRecord,
  SnapshotRecord,
  WorkerRecord,
} from '../docket-store.js';
import { fieldsToRecord } from '../fields.js';
import { CONSUMER_GROUP } from '../keys.js';
import { keysField, progressRecord, runRecord } from '../records.js';
import { decodeWorkerAbout } from '../worker-about.js';
import { defineScript } from './script.js';

/** read-execution-2.lua: the record and progress of one execution. */
export const READ_EXECUTION = defineScript<
  { key: string },
  { run: RunRecord; progress: ProgressRecord } | null
>({
  file: 'read-execution-2',
  keys: (k, { key }) => [k.runs(key), k.progress(key)],
  args: () => [],
  decode: (reply) => {
    const [runs, progress] = reply as [string[], string[]];
    const run = runRecord(fieldsToRecord(runs));
    return run && { run, progress: progressRecord(fieldsToRecord(progress)) };
  },
});

/** read-progress-1.lua: the progress of several executions. */
export const READ_PROGRESS = defineScript<{ keys: readonly string[] }, ProgressRecord[]>({
  file: 'read-progress-1',
  keys: (k) => [k.stream],
  args: (k, { keys }) => [k.prefix, ...keys],
  decode: (reply) => (reply as string[][]).map((hash) => progressRecord(fieldsToRecord(hash))),
});

/** depths-3.lua: the counts of the docket. */
export const DEPTHS = defineScript<
  { now: number; liveSince: number },
  Depths & { stream: number; releasing: number }
>({
  file: 'depths-4',
  keys: (k) => [k.stream, k.queue, k.workers, k.dead],
  args: (k, { now, liveSince }) => [CONSUMER_GROUP, now, liveSince, k.prefix],
  decode: (reply) => {
    const [stream, pending, due, future, workers, deadLetters, held, releasing] = (
      reply as number[]
    ).map(Number);
    return {
      stream,
      queue: Math.max(0, stream - pending) + due,
      schedule: future,
      running: pending,
      workers,
      deadLetters,
      held,
      releasing,
    };
  },
});

/** snapshot-2.lua: what the stream, the queue and the waiting lines hold. */
export const SNAPSHOT = defineScript<{ limit: number }, SnapshotRecord>({
  file: 'snapshot-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, { limit }) => [k.prefix, limit],
  decode: (reply) => {
    const rows = reply as unknown[][];
    const runs: SnapshotRecord['runs'] = [];
    for (const row of rows) {
      const [key, state, task, args, when, attempt, worker, startedAt, generation] = row as (
        string | null
      )[];
      const open = row[9] as unknown as string[] | undefined;
      const run = runRecord(
        fieldsToRecord([
          ...['state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt],
          ...['worker', worker, 'startedAt', startedAt, 'generation', generation],
        ]),
      );
      if (run && key !== null && run.taskName) {
        runs.push(open && open.length > 0 ? { ...run, key, waitingFor: open } : { ...run, key });
      }
    }
    return { runs };
  },
});

/** workers-1.lua: the live workers (of one task). */
export const WORKERS = defineScript<{ since: number; task?: string }, WorkerRecord[]>({
  file: 'workers-1',
  keys: (k) => [k.workers],
  args: (k, { since, task }) => [k.prefix, since, task ?? ''],
  decode: (reply) =>
    (reply as [string, string, string[], string?][])
      .map(([name, seen, tasks, about]) => ({
        name,
        lastSeen: Number(seen),
        tasks: [...tasks].sort(),
        about: decodeWorkerAbout(about),
      }))
      .sort((a, b) => b.lastSeen - a.lastSeen),
});

/** dependencies-1.lua: the outcomes of the keys an execution waited for. */
export const READ_DEPENDENCIES = defineScript<{ key: string }, DependenciesRecord | null>({
  file: 'dependencies-1',
  keys: (k, { key }) => [k.runs(key)],
  args: (k, { key }) => [k.prefix, key],
  decode: (reply) => {
    const [after, rows] = reply as [string, [string, string, string, string][]];
    const keys = keysField(after);
    if (!keys) return null;
    const outcomes: DependenciesRecord['outcomes'] = new Map();
    for (const [key, state, result, error] of rows) {
      outcomes.set(key, {
        state: state as 'open' | 'unknown' | 'completed' | 'failed' | 'cancelled',
        result,
        error,
      });
    }
    return { after: keys, outcomes };
  },
});
