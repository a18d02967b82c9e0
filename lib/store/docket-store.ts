import type { DocketEvent } from '../interfaces/docket-event.interface.js';
import type {
  ExecutionState,
  ProgressEvent,
  StateEvent,
} from '../interfaces/execution.interface.js';
import type { AdmissionRule } from './admission.js';
import type {
  DependenciesRecord,
  Depths,
  ExplainRecord,
  HistoryRecord,
  ProgressRecord,
  RunRecord,
  SnapshotRecord,
  TaskCountsRecord,
  TaskListRecord,
  WorkerRecord,
  DeadLetterRecord,
} from './read-records.js';
import type { HistoryFilter } from './scripts/history.script.js';
import type { TaskListFilter } from './scripts/list.script.js';
import type { WorkerAbout } from './worker-about.js';

export type { HistoryFilter } from './scripts/history.script.js';
export type { TaskListFilter } from './scripts/list.script.js';
export type { WorkerAbout } from './worker-about.js';

/**
 * The seam between the engine and its storage: every docket operation the producer, the
 * worker and the read model need, in domain terms. Only `store/` knows Redis commands, key
 * names and scripts; `RedisDocketStore` is the one implementation (memory:// runs below it, at
 * the command level). Times are epoch milliseconds.
 */
export interface DocketStore
  extends ProducerStore, WorkerStore, InspectionStore, DocketChannels, StoreConnection {}

/** The connection behind the store. */
export interface StoreConnection {
  /** The URL, password masked. */
  readonly description: string;
  /** Resolves once commands can be sent; `RedisUnavailableError` after `wait` ms. */
  ready(wait?: number): Promise<void>;
  /** Whether commands can be sent now (no waiting). */
  readonly connected: boolean;
  /** Close every connection the store opened (a client given by the application stays open). */
  close(): void;
  /**
   * Whether Redis refuses writes for lack of memory now (`maxmemory` reached under the
   * `noeviction` policy): adds fail, while workers go on draining.
   */
  refusesWrites(): Promise<boolean>;
}

// -- producing ---------------------------------------------------------------------------

/** One execution to schedule: an add, a replace, or the engine's own (seeding, retry of a dead letter). */
export interface ScheduleRequest {
  key: string;
  taskName: string;
  /** Encoded arguments (execution/codec). */
  args: string;
  when: number;
  attempt: number;
  /** 'add' leaves a live key alone; 'replace' removes its scheduled or queued copy. */
  mode: 'add' | 'replace';
  traceparent?: string;
  tracestate?: string;
  /** 0 (first) … 9 (last); 5 when not given. */
  priority?: number;
  /** The keys this execution waits for (SPEC §12); none: it is scheduled as usual. */
  after?: ScheduleDependencies;
}

/** What a request that waits for other keys carries. */
export interface ScheduleDependencies {
  keys: readonly string[];
  /** 'fail': a dependency that does not complete ends the waiter failed; 'run': it runs anyway. */
  onFailure: 'fail' | 'run';
}

/** What Redis did with a `ScheduleRequest`. */
export type ScheduleResult = ScheduleOutcome | ScheduleFailure;

/** A request that was written, or that found its key live. */
export interface ScheduleOutcome {
  disposition: 'scheduled' | 'already_scheduled';
  /** The state after the call: of the new execution, or of the live one. */
  state: ExecutionState;
  when: number;
  generation: number;
  /** Task, encoded arguments and attempt of the new execution, or of the live one. */
  taskName: string;
  args: string;
  attempt: number;
}

/** A request that failed alone: a record of its key cannot be read (a wrong-typed key). */
export interface ScheduleFailure {
  disposition: 'error';
  error: string;
  /** A replace whose `after` reaches its own key (nothing was written for it). */
  cycle?: true;
}

/**
 * What `scheduleAll` did: every request taken (each written, or found live), or none, because
 * a record the call would read cannot be (`index`: of the request; none for a docket-wide one).
 */
export type ScheduleAllResult =
  { written: true; results: ScheduleOutcome[] } | { written: false; index?: number; error: string };

/** What `cancel` found: the state before it (or 'missing') and the task's name. */
export interface CancelResult {
  found: ExecutionState | 'missing';
  taskName: string;
}

/** One entry of the strike log. */
export interface StrikeLogEntry {
  id: string;
  op: 'strike' | 'restore';
  /** '' = every task. */
  task: string;
  /** '' = the whole task. */
  parameter: string;
  operator: string;
  /** The encoded value ('' without a parameter). */
  value: string;
}

export interface ProducerStore {
  /**
   * Schedule in order, in one call; one result per request. `executionTtl` is how long the
   * record of a waiter that fails at once (a dependency had already failed) is kept: it
   * matters only to requests with `after`.
   */
  schedule(
    requests: readonly ScheduleRequest[],
    now: number,
    executionTtl?: number,
  ): Promise<ScheduleResult[]>;
  /** Schedule in order, in one call, all or none (`executionTtl` as for `schedule`). */
  scheduleAll(
    requests: readonly ScheduleRequest[],
    now: number,
    executionTtl?: number,
  ): Promise<ScheduleAllResult>;
  cancel(key: string, now: number, executionTtl: number): Promise<CancelResult>;
  /** Remove every scheduled and queued task (running ones go on); returns how many. */
  clear(now: number, executionTtl: number): Promise<number>;
  /** Pause the docket (`'*'`) or a task: its work is held by the claim until `resume`. */
  pause(what: string): Promise<void>;
  /**
   * Lift the pause of the docket (`'*'`) or of a task and put back the held work that may run
   * again, in its order; returns how many tasks were put back.
   */
  resume(what: string): Promise<number>;
  /** What is paused: `'*'` for the docket, and task names. */
  pausedNames(): Promise<string[]>;
  /** Tell every process's scripts to publish events for the next `ttl` ms (renew it). */
  listenForEvents(ttl: number): Promise<void>;
  appendStrike(entry: Omit<StrikeLogEntry, 'id'>): Promise<string>;
  /** Entries of the strike log after `after` ('0-0': from the start), at most `count`. */
  readStrikes(after: string, count: number): Promise<StrikeLogEntry[]>;
}

// -- working -----------------------------------------------------------------------------

/**
 * A message as read: its id and its flat field list. The id names the message's lane (the
 * stream it waits in, by priority: `<id>` in the default lane, `<lane>/<id>` in another), and
 * is passed back as it is.
 */
export type StreamEntry = [id: string, fields: string[]];

/** One delivered message a worker asks to start. */
export interface ClaimRequest {
  key: string;
  generation: string;
  id: string;
  admission: readonly AdmissionRule[];
}

/** The claim script's verdict for one message (see claim-2.lua). */
export type ClaimStatus =
  'run' | 'superseded' | 'cancelled' | 'deferred' | 'waiting' | 'held' | 'poisoned' | 'error';

/** The settings a claim runs with. */
export interface ClaimOptions {
  now: number;
  executionTtl: number;
  deadLetterTtl: number;
  /** Most starts of one attempt (`maxRedeliveries + 1`): one more is a poison message. */
  maxStarts: number;
  /** Most new messages the worker reads along after the claims (none when absent or 0). */
  readAlong?: number;
}

/** What `claim` answers: one status per request, and the messages read along. */
export interface ClaimResult {
  statuses: ClaimStatus[];
  read: StreamEntry[];
}

/** A task a worker started: what identifies its execution and its message. */
export interface StartedTask {
  key: string;
  generation: string;
  id: string;
}

/** How one delivered message ended (see finish-2.lua). */
export interface TaskEnd {
  key: string;
  generation: string;
  id: string;
  /**
   * How it ended; 'dead' fails its last attempt and dead-letters it; 'rejected' is a message
   * whose fields could not be read (dead-lettered; its key's execution fails only when this
   * message is the one it waits on).
   */
  outcome: 'completed' | 'failed' | 'cancelled' | 'retry' | 'dead' | 'rejected';
  /** Encoded result ('' or absent = none). */
  result?: string;
  /** `"<Name>: <message>"`. */
  error?: string;
  /** The error's stack, cut to STACK_MAX_CHARS (absent: none). */
  stack?: string;
  retryWhen?: number;
  attempt: number;
  taskName: string;
  /** The message's encoded arguments, as read. */
  args: string;
  /** The rules it was admitted with: its concurrency slots are given back. */
  admission: readonly AdmissionRule[];
  /** A perpetual task's successor: when, and its encoded args ('' = the same). */
  nextWhen?: number;
  nextArgs?: string;
}

/**
 * What became of an end: recorded ('ok'), changed nothing because a successor exists or the
 * execution already ended ('superseded'), recorded as 'cancelled' because a cancel was
 * recorded first, or dead-lettered because its records cannot be read ('error').
 */
export type EndStatus = 'ok' | 'superseded' | 'cancelled' | 'error';

/** What `finish` answers: one status per end, and the messages read along. */
export interface FinishResult {
  statuses: EndStatus[];
  read: StreamEntry[];
}

/** Ask for up to `count` new messages in the call that records ends. */
export interface ReadAlong {
  consumer: string;
  count: number;
}

/** How `finish` runs: the settings of the ends, and whether it reads new messages along. */
export interface FinishOptions {
  now: number;
  executionTtl: number;
  deadLetterTtl: number;
  readAlong?: ReadAlong;
}

/** A blocking reader of new messages: one connection of its own. */
export interface DeliveryReader {
  /**
   * Up to `count` new messages for `consumer`, the lanes in rank order (priority first),
   * waiting at most `blockMs` for the first.
   */
  read(count: number, blockMs: number): Promise<StreamEntry[]>;
  /** How many lanes the docket had at the last read (1: every task has the default priority). */
  readonly lanes: number;
  /** End a read in flight now (it returns as if it timed out); the next read returns at once. */
  interrupt(): void;
  close(): void;
}

/** What a worker holds, whose leases to renew. */
export interface LeaseRenewal {
  consumer: string;
  /** Stream ids of messages held (running or read ahead). */
  ids: readonly string[];
  /** Running tasks: their cancel flags are read and their concurrency slots renewed. */
  running: readonly { key: string; admission: readonly AdmissionRule[] }[];
  now: number;
}

export interface WorkerStore {
  /** Create the consumer group (and the stream) unless it exists. */
  ensureGroup(): Promise<void>;
  openReader(consumer: string): DeliveryReader;
  /** Messages idle longer than `idleMs`, taken over by `consumer`. */
  autoclaim(
    consumer: string,
    idleMs: number,
    cursor: string,
    count: number,
  ): Promise<{ cursor: string; entries: StreamEntry[] }>;
  claim(
    consumer: string,
    requests: readonly ClaimRequest[],
    options: ClaimOptions,
  ): Promise<ClaimResult>;
  finish(ends: readonly TaskEnd[], options: FinishOptions): Promise<FinishResult>;
  /** Renew leases; answers the keys of running tasks whose cancel flag is set. */
  renewLeases(renewal: LeaseRenewal): Promise<string[]>;
  /**
   * Hand back what a stopping worker holds (`held`: every message id; `started`: the tasks it
   * started), for another worker to take at once; returns how many executions went back.
   */
  release(
    consumer: string,
    held: readonly string[],
    started: readonly StartedTask[],
    now: number,
  ): Promise<number>;
  /**
   * Record that `worker` is alive; with `registry`, (re)write its task registry too. Answers
   * when the earliest future task is due (Infinity: none), so that a scheduler learns of one
   * nobody announced.
   */
  beat(
    worker: string,
    now: number,
    registry?: { tasks: string[]; window: number; lifetime: number; about?: WorkerAbout },
  ): Promise<number>;
  unregister(worker: string): Promise<void>;
  /** Remove `worker`'s consumer from the group when nothing of it is pending. */
  forgetConsumer(worker: string): Promise<void>;
  /** Move due tasks to the stream; returns how many and when the next is due (Infinity: none). */
  moveDue(
    now: number,
    limit: number,
    ttls: { executionTtl: number; deadLetterTtl: number },
  ): Promise<{ moved: number; next: number }>;
  writeProgress(
    key: string,
    generation: string,
    op: 'total' | 'increment' | 'message',
    operand: string | number,
    now: number,
  ): Promise<void>;
  /** The lock under which one worker seeds automatic tasks; false when another holds it. */
  lockSeeding(ms: number): Promise<boolean>;
  unlockSeeding(): Promise<void>;
}

// -- reading -----------------------------------------------------------------------------

export * from './read-records.js';

export interface InspectionStore {
  /** Why the execution of `key` is where it is; at most `cap` tasks are counted ahead. */
  explain(key: string, now: number, liveSince: number, cap: number): Promise<ExplainRecord>;
  readExecution(key: string): Promise<{ run: RunRecord; progress: ProgressRecord } | null>;
  readResult(key: string): Promise<string | null>;
  /** The outcomes of the keys `key` waited for; null when it has no `after`. */
  readDependencies(key: string): Promise<DependenciesRecord | null>;
  readProgress(keys: readonly string[]): Promise<ProgressRecord[]>;
  depths(now: number, liveSince: number): Promise<Depths>;
  /** Whether the stream and the queue are both empty. */
  isEmpty(): Promise<boolean>;
  /** At most `limit` executions of the stream, the queue and the waiting lines. */
  snapshot(limit: number): Promise<SnapshotRecord>;
  /** How many tasks are running, queued and scheduled (not cut like a snapshot). */
  countTasks(): Promise<TaskCountsRecord>;
  /** One page of the live executions that pass `filter`, and how many pass it in all. */
  listTasks(filter: TaskListFilter): Promise<TaskListRecord>;
  /**
   * Keep a history of finished executions, of at most `size`, for `ttl` ms from now (the
   * scripts add every end to it while this lasts; renew it to go on).
   */
  keepHistory(size: number, ttl: number): Promise<void>;
  /** One page of the kept history that passes `filter`, newest end first, and its total. */
  history(filter: HistoryFilter): Promise<HistoryRecord>;
  /** Whether any of the docket's lasting keys exists: false when it was never used here. */
  hasKeys(): Promise<boolean>;
  /** The names of the dockets whose lasting keys are on this database, sorted. */
  docketNames(): Promise<string[]>;
  /** Live workers (of `task`, or all), newest first. */
  liveWorkers(since: number, task?: string): Promise<WorkerRecord[]>;
  deadLetters(): Promise<DeadLetterRecord[]>;
  /**
   * Schedule the dead letters `ids` again (their key, task and arguments; attempt 1, now),
   * deleting each whose key was free; returns the ids that were scheduled.
   */
  retryDeadLetters(ids: readonly string[], now: number): Promise<string[]>;
  /** Delete every dead letter; returns how many there were. */
  purgeDeadLetters(): Promise<number>;
  /**
   * At most `count` dead letters after the id `after` ('0-0' = from the oldest) up to the id
   * `until` (included), oldest first: a read of the dead letters in bounded pieces.
   */
  readDeadLetters(after: string, until: string, count: number): Promise<DeadLetterRecord[]>;
  /** The id of the newest dead letter, or null when there is none. */
  newestDeadLetterId(): Promise<string | null>;
  /**
   * `limit` dead letters from the `offset`-th newest on, newest first (none when `offset` is
   * past the end), and how many there are in all: read from the nearer end of the list.
   */
  newestDeadLetters(
    offset: number,
    limit: number,
  ): Promise<{ total: number; letters: DeadLetterRecord[] }>;
  /**
   * At most `count` dead letters before the id `before` (null: from the newest), newest first:
   * a read of the dead letters in bounded pieces, from the newest.
   */
  deadLettersBefore(before: string | null, count: number): Promise<DeadLetterRecord[]>;
  /** The dead letter of each id, or null where there is none (retried, deleted, expired). */
  deadLettersById(ids: readonly string[]): Promise<(DeadLetterRecord | null)[]>;
  /** Delete the dead letters `ids`; returns how many of them there were. */
  deleteDeadLetters(ids: readonly string[]): Promise<number>;
}

// -- channels ----------------------------------------------------------------------------

/** Undo a subscription. */
export type Unsubscribe = () => Promise<void>;

/**
 * The docket's pub/sub channels. A payload that cannot be read is ignored (with a warning):
 * a handler never sees garbage and never throws into the subscriber.
 */
export interface DocketChannels {
  /** Whether messages can arrive now (the subscriber is connected). */
  readonly listening: boolean;
  /** Called after the subscriber reconnected (messages may have been missed). */
  onReconnect(listener: () => void): () => void;
  /** `cancel(key)` of a running task. */
  onCancel(handler: (key: string) => void): Promise<Unsubscribe>;
  /** A future task due at `due` became the earliest. */
  onWake(handler: (due: number) => void): Promise<Unsubscribe>;
  /** A new entry in the strike log. */
  onStrike(handler: () => void): Promise<Unsubscribe>;
  /** The docket's events, of every process (see `listenForEvents`). */
  onEvents(handler: (event: DocketEvent) => void): Promise<Unsubscribe>;
  /** State and progress events of one key. */
  onExecution(
    key: string,
    handler: (event: StateEvent | ProgressEvent) => void,
  ): Promise<Unsubscribe>;
  /** State events of every key of the docket (its own connection: a pattern subscription). */
  onAnyState(handler: (event: StateEvent) => void): Promise<Unsubscribe>;
}
