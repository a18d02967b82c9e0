import type { ExecutionState, ExplanationReason } from '../interfaces/execution.interface.js';
import type { DocketDepths } from '../interfaces/snapshot.interface.js';
import type { WorkerAbout } from './worker-about.js';

// The records the store reads back (see InspectionStore in docket-store.ts), as stored.

/** The record of one execution (the runs hash), as stored. */
export interface RunRecord {
  state: ExecutionState;
  taskName: string;
  /** Encoded arguments. */
  args: string;
  when: number;
  attempt: number;
  generation: number;
  worker?: string;
  startedAt?: number;
  completedAt?: number;
  error?: string;
  /** The stack of `error`, as the worker saw it. */
  stack?: string;
  /** Its earlier attempts, oldest first (see lua/includes/attempts.lua); none without. */
  attempts?: AttemptRecord[];
  /** The keys of its `after`, in order (none without). */
  after?: string[];
}

/** An earlier attempt of an execution, as stored (times in epoch ms). */
export interface AttemptRecord {
  attempt: number;
  outcome: 'failed' | 'lost';
  worker?: string;
  dueAt?: number;
  startedAt?: number;
  endedAt: number;
  error?: string;
  stack?: string;
  retryAt?: number;
}

/** The outcomes of the keys an execution waited for (see lua/dependencies-1.lua). */
export interface DependenciesRecord {
  /** The keys of its `after`, in order. */
  after: string[];
  /** Per key: 'open' (not ended yet), 'unknown' (never existed) or how it ended. */
  outcomes: Map<
    string,
    {
      state: 'open' | 'unknown' | 'completed' | 'failed' | 'cancelled';
      result: string;
      error: string;
    }
  >;
}

/** Progress as stored (absent fields as null; total 100 once it counts without one). */
export interface ProgressRecord {
  current: number | null;
  total: number | null;
  message: string | null;
  updatedAt: number | null;
}

/** Counts of the docket at one moment (the public depths but the strikes, which are not stored counts). */
export type Depths = Omit<DocketDepths, 'strikes'>;

/** How many tasks there are in each place, counted in full. */
export interface TaskCountsRecord {
  /** Read by a worker, and running. */
  running: number;
  /** On the stream and not running, waiting for a concurrency slot, or held while paused. */
  queued: number;
  /** Of `queued`, held while their task or the docket is paused. */
  held: number;
  /** In the queue. */
  scheduled: number;
}

/** The executions a snapshot lists. */
export interface SnapshotRecord {
  /** `waitingFor`: the keys an execution waiting for its dependencies still waits for. */
  runs: (RunRecord & { key: string; waitingFor?: string[] })[];
}

/** A page of the history of finished executions (see lua/history-1.lua). */
export interface HistoryRecord {
  total: number;
  runs: (RunRecord & { key: string })[];
}

/** One page of the live executions that pass a filter, and how many pass it in all. */
export interface TaskListRecord {
  total: number;
  /** `waitingFor`: as in `SnapshotRecord`. */
  runs: (RunRecord & { key: string; waitingFor?: string[] })[];
}

/** A live worker, from the heartbeat registry. */
export interface WorkerRecord {
  name: string;
  lastSeen: number;
  tasks: string[];
  /** What it told about itself; every field null for a worker that told nothing (older). */
  about: WorkerAbout;
}

/** One entry of the dead-letter stream. */
export interface DeadLetterRecord {
  id: string;
  key: string;
  taskName: string;
  /** Encoded arguments (raw text). */
  args: string;
  error: string;
  /** The error's stack ('' when the letter has none). */
  stack: string;
  attempt: number;
  deadAt: number;
}

/** What explain-1.lua answers (a strike is the caller's to check). */
export interface ExplainRecord {
  state: ExecutionState | 'missing';
  reason: Exclude<ExplanationReason, 'struck'>;
  detail: string;
  since?: number;
  until?: number;
  taskName: string;
  /** Encoded arguments ('[]' when none are known). */
  args: string;
}
