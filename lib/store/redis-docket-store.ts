import type { DocketEvent } from '../interfaces/docket-event.interface.js';
import type { ProgressEvent, StateEvent } from '../interfaces/execution.interface.js';
import { RedisDeliveryReader } from './delivery-reader.js';
import type {
  CancelResult,
  ClaimOptions,
  ClaimRequest,
  ClaimResult,
  DeadLetterRecord,
  DeliveryReader,
  Depths,
  DocketStore,
  ExplainRecord,
  FinishResult,
  LeaseRenewal,
  ProgressRecord,
  FinishOptions,
  RunRecord,
  DependenciesRecord,
  ScheduleAllResult,
  ScheduleRequest,
  ScheduleResult,
  SnapshotRecord,
  StartedTask,
  StreamEntry,
  StrikeLogEntry,
  TaskCountsRecord,
  TaskEnd,
  TaskListFilter,
  TaskListRecord,
  HistoryFilter,
  HistoryRecord,
  Unsubscribe,
  WorkerRecord,
} from './docket-store.js';
import { CONSUMER_GROUP } from './keys.js';
import { RedisStoreBase } from './redis-store-base.js';
import { classifyRedisError } from './redis-errors.js';
import { CANCEL, CLEAR } from './scripts/cancel.script.js';
import { CLAIM } from './scripts/claim.script.js';
import { COUNTS } from './scripts/counts.script.js';
import { RESUME } from './scripts/pause.script.js';
import { EXPLAIN } from './scripts/explain.script.js';
import { PURGE_DEAD, RETRY_DEAD } from './scripts/dead-letters.script.js';
import { DEAD_LETTER_PAGE } from './scripts/dead-letter-page.script.js';
import { FINISH } from './scripts/finish.script.js';
import { HISTORY } from './scripts/history.script.js';
import { LIST_PIECE, LIST_TASKS } from './scripts/list.script.js';
import { MOVE_DUE } from './scripts/move-due.script.js';
import { PROGRESS } from './scripts/progress.script.js';
import {
  DEPTHS,
  READ_DEPENDENCIES,
  READ_EXECUTION,
  READ_PROGRESS,
  SNAPSHOT,
  WORKERS,
} from './scripts/reads.script.js';
import { READ_LANES } from './scripts/lanes.script.js';
import {
  SCHEDULE,
  SCHEDULE_AFTER,
  SCHEDULE_ALL,
  SCHEDULE_ALL_AFTER,
  SCHEDULE_MANY,
} from './scripts/schedule.script.js';
import { STRIKE } from './scripts/strike.script.js';
import type { WorkerAbout } from './worker-about.js';
import {
  FORGET_CONSUMER,
  BEAT,
  ENSURE_GROUP,
  HEARTBEAT,
  RELEASE,
  RENEW_LEASES,
  UNREGISTER,
} from './scripts/worker-registry.script.js';
import {
  deadLetterEntry,
  scanDocketNames,
  laneCursor,
  laneOrder,
  nextLaneCursor,
  strikeEntry,
} from './redis-replies.js';

/** Held tasks put back per resume step (one script call). */
const RESUME_STEP = 5_000;

/** The docket store over Redis commands and the scripts of `lua/` (also on memory://). */
/** How many dead letters one command reads when all of them are read. */
const DEAD_LETTERS_READ = 1_000;

export class RedisDocketStore extends RedisStoreBase implements DocketStore {
  // -- producing -------------------------------------------------------------------------

  async schedule(
    requests: readonly ScheduleRequest[],
    now: number,
    executionTtl = 0,
  ): Promise<ScheduleResult[]> {
    if (requests.length === 0) return [];
    // only requests that wait for other keys take the script that knows dependencies
    if (requests.some((q) => q.after)) {
      return this.run(SCHEDULE_AFTER, { now, requests, executionTtl });
    }
    if (requests.length === 1) return [await this.run(SCHEDULE, { now, request: requests[0] })];
    return this.run(SCHEDULE_MANY, { now, requests });
  }

  async scheduleAll(
    requests: readonly ScheduleRequest[],
    now: number,
    executionTtl = 0,
  ): Promise<ScheduleAllResult> {
    if (requests.length === 0) return { written: true, results: [] };
    if (requests.some((q) => q.after)) {
      return this.run(SCHEDULE_ALL_AFTER, { now, requests, executionTtl });
    }
    return this.run(SCHEDULE_ALL, { now, requests });
  }

  cancel(key: string, now: number, executionTtl: number): Promise<CancelResult> {
    return this.run(CANCEL, { key, now, executionTtl });
  }

  clear(now: number, executionTtl: number): Promise<number> {
    return this.run(CLEAR, { now, executionTtl });
  }

  async pause(what: string): Promise<void> {
    await this.ready();
    await this.command('sadd', this.keys.paused, what);
  }

  async resume(what: string): Promise<number> {
    // in steps, so that a long pause does not put back its whole backlog in one script
    let step = await this.run(RESUME, { what, budget: RESUME_STEP });
    let moved = step.moved;
    while (step.left > 0 && step.moved > 0) {
      step = await this.run(RESUME, { what: '', budget: RESUME_STEP });
      moved += step.moved;
    }
    return moved;
  }

  async listenForEvents(ttl: number): Promise<void> {
    await this.ready();
    await this.command('set', this.keys.eventsOn, '1', 'PX', ttl);
  }

  async pausedNames(): Promise<string[]> {
    await this.ready();
    return ((await this.command('smembers', this.keys.paused)) as string[]).sort();
  }

  appendStrike(entry: Omit<StrikeLogEntry, 'id'>): Promise<string> {
    return this.run(STRIKE, entry);
  }

  async readStrikes(after: string, count: number): Promise<StrikeLogEntry[]> {
    await this.ready();
    const start = after === '0-0' ? '-' : `(${after}`;
    const entries = (await this.command(
      'xrange',
      this.keys.strikes,
      start,
      '+',
      'COUNT',
      count,
    )) as StreamEntry[];
    return entries.map(strikeEntry);
  }

  // -- working ---------------------------------------------------------------------------

  async ensureGroup(): Promise<void> {
    await this.run(ENSURE_GROUP, {});
  }

  openReader(consumer: string): DeliveryReader {
    return new RedisDeliveryReader(this.connection, this.keys, consumer, {
      ensureGroup: () => this.ensureGroup(),
      readLanes: (reader, count) => this.run(READ_LANES, { consumer: reader, count }),
      onLane: (handler) => this.channels.onLane(handler),
    });
  }

  /**
   * Take over messages idle longer than `idleMs`, lane by lane in rank order. The cursor is
   * `<lane>|<stream cursor>` ('0-0' to start): a lane's scan goes on where it stopped, and
   * the next lane starts when it wraps.
   */
  async autoclaim(
    consumer: string,
    idleMs: number,
    cursor: string,
    count: number,
  ): Promise<{ cursor: string; entries: StreamEntry[] }> {
    await this.ready();
    const lanes = laneOrder(
      (await this.command('zrange', this.keys.lanes, 0, -1, 'WITHSCORES')) as string[],
    );
    const [lane, from] = laneCursor(cursor, lanes);
    let reply: [string, (StreamEntry | null)[]];
    try {
      reply = (await this.connection.commands.call(
        'xautoclaim',
        ...[this.keys.lane(lane), CONSUMER_GROUP, consumer, idleMs, from, 'COUNT', count],
      )) as [string, (StreamEntry | null)[]];
    } catch (error) {
      if (classifyRedisError(error) !== 'nogroup') throw this.connection.error(error);
      // no group: nothing can be pending; make it for the reads to come
      await this.ensureGroup();
      return { cursor: '0-0', entries: [] };
    }
    const [next, entries] = reply;
    return {
      cursor: nextLaneCursor(lane, next, lanes),
      // an entry deleted while pending comes back as nil (Redis 6.2) or not at all (7)
      entries: entries
        .filter((entry): entry is StreamEntry => Array.isArray(entry) && Array.isArray(entry[1]))
        .map(([id, fields]) => [lane === 'stream' ? id : `${lane}/${id}`, fields]),
    };
  }

  claim(
    consumer: string,
    requests: readonly ClaimRequest[],
    options: ClaimOptions,
  ): Promise<ClaimResult> {
    return this.run(CLAIM, { consumer, requests, ...options });
  }

  finish(ends: readonly TaskEnd[], options: FinishOptions): Promise<FinishResult> {
    return this.run(FINISH, { ends, ...options });
  }

  renewLeases(renewal: LeaseRenewal): Promise<string[]> {
    return this.run(RENEW_LEASES, renewal);
  }

  release(
    consumer: string,
    held: readonly string[],
    started: readonly StartedTask[],
    now: number,
  ): Promise<number> {
    return this.run(RELEASE, { consumer, held, started, now });
  }

  beat(
    worker: string,
    now: number,
    registry?: { tasks: string[]; window: number; lifetime: number; about?: WorkerAbout },
  ): Promise<number> {
    // the beats between registry writes are a tiny script: an idle worker costs next to nothing
    return registry
      ? this.run(HEARTBEAT, { worker, now, ...registry })
      : this.run(BEAT, { worker, now });
  }

  unregister(worker: string): Promise<void> {
    return this.run(UNREGISTER, { worker });
  }

  async forgetConsumer(worker: string): Promise<void> {
    await this.run(FORGET_CONSUMER, { worker });
  }

  moveDue(
    now: number,
    limit: number,
    ttls: { executionTtl: number; deadLetterTtl: number },
  ): Promise<{ moved: number; next: number }> {
    return this.run(MOVE_DUE, { now, limit, ...ttls });
  }

  writeProgress(
    key: string,
    generation: string,
    op: 'total' | 'increment' | 'message',
    operand: string | number,
    now: number,
  ): Promise<void> {
    return this.run(PROGRESS, { key, generation, op, operand, now });
  }

  async lockSeeding(ms: number): Promise<boolean> {
    await this.ready();
    return (await this.command('set', this.keys.seedLock, '1', 'PX', ms, 'NX')) === 'OK';
  }

  async unlockSeeding(): Promise<void> {
    await this.command('del', this.keys.seedLock);
  }

  // -- reading ---------------------------------------------------------------------------

  readExecution(key: string): Promise<{ run: RunRecord; progress: ProgressRecord } | null> {
    return this.run(READ_EXECUTION, { key });
  }

  async readResult(key: string): Promise<string | null> {
    await this.ready();
    return (await this.command('get', this.keys.results(key))) as string | null;
  }

  readDependencies(key: string): Promise<DependenciesRecord | null> {
    return this.run(READ_DEPENDENCIES, { key });
  }

  async readProgress(keys: readonly string[]): Promise<ProgressRecord[]> {
    if (keys.length === 0) return [];
    return this.run(READ_PROGRESS, { keys });
  }

  async depths(now: number, liveSince: number): Promise<Depths> {
    const {
      stream: _stream,
      releasing: _releasing,
      ...depths
    } = await this.run(DEPTHS, {
      now,
      liveSince,
    });
    return depths;
  }

  async isEmpty(): Promise<boolean> {
    const now = Date.now();
    const depths = await this.run(DEPTHS, { now, liveSince: now });
    // with nothing on the stream, `queue` counts the due tasks of the queue
    // (waiters still being told that a dependency ended are work too)
    return (
      depths.stream === 0 && depths.queue === 0 && depths.schedule === 0 && depths.releasing === 0
    );
  }

  explain(key: string, now: number, liveSince: number, cap: number): Promise<ExplainRecord> {
    return this.run(EXPLAIN, { key, now, liveSince, cap });
  }

  snapshot(limit: number): Promise<SnapshotRecord> {
    return this.run(SNAPSHOT, { limit });
  }

  countTasks(): Promise<TaskCountsRecord> {
    return this.run(COUNTS, {});
  }

  async listTasks(filter: TaskListFilter): Promise<TaskListRecord> {
    // a filtered list comes in pieces: each passes on where it stopped, and what is left of
    // the offset and of the page
    let total = 0;
    const runs: TaskListRecord['runs'] = [];
    let cursor = '';
    do {
      const piece = await this.run(LIST_TASKS, {
        ...filter,
        offset: Math.max(0, filter.offset - total),
        limit: Math.max(0, filter.limit - runs.length),
        cursor,
        budget: filter.piece ?? LIST_PIECE,
      });
      total += piece.total;
      runs.push(...piece.runs);
      cursor = piece.cursor;
    } while (cursor !== '');
    return { total, runs };
  }

  async keepHistory(size: number, ttl: number): Promise<void> {
    await this.ready();
    await this.command('set', this.keys.historyOn, String(size), 'PX', ttl);
  }

  history(filter: HistoryFilter): Promise<HistoryRecord> {
    return this.run(HISTORY, filter);
  }

  async hasKeys(): Promise<boolean> {
    await this.ready();
    return Number(await this.command('exists', ...this.keys.markers)) > 0;
  }

  async docketNames(): Promise<string[]> {
    await this.ready();
    const { commands, cluster } = this.connection;
    // a Cluster spreads dockets over its masters: each is scanned
    const nodes = cluster && commands.nodes ? commands.nodes('master') : [commands];
    try {
      return await scanDocketNames(nodes);
    } catch (error) {
      throw this.connection.error(error);
    }
  }

  liveWorkers(since: number, task?: string): Promise<WorkerRecord[]> {
    return this.run(WORKERS, { since, task });
  }

  async deadLetters(): Promise<DeadLetterRecord[]> {
    // in pieces, up to the newest letter when the read began: no call holds Redis for every
    // letter
    const until = await this.newestDeadLetterId();
    if (until === null) return [];
    const letters: DeadLetterRecord[] = [];
    for (let after = '0-0'; ;) {
      const piece = await this.readDeadLetters(after, until, DEAD_LETTERS_READ);
      letters.push(...piece);
      const last = piece.at(-1)?.id;
      if (piece.length < DEAD_LETTERS_READ || last === undefined || last === until) break;
      after = last;
    }
    return letters;
  }

  async retryDeadLetters(ids: readonly string[], now: number): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.run(RETRY_DEAD, { ids, now });
  }

  purgeDeadLetters(): Promise<number> {
    return this.run(PURGE_DEAD, {});
  }

  async readDeadLetters(after: string, until: string, count: number): Promise<DeadLetterRecord[]> {
    await this.ready();
    const entries = (await this.command(
      'xrange',
      this.keys.dead,
      `(${after}`,
      until,
      'COUNT',
      Math.max(1, Math.floor(count)),
    )) as StreamEntry[];
    return entries.map(deadLetterEntry);
  }

  async newestDeadLetterId(): Promise<string | null> {
    await this.ready();
    const [newest] = (await this.command('xrevrange', this.keys.dead, '+', '-', 'COUNT', 1)) as [
      StreamEntry?,
    ];
    return newest ? newest[0] : null;
  }

  newestDeadLetters(
    offset: number,
    limit: number,
  ): Promise<{ total: number; letters: DeadLetterRecord[] }> {
    return this.run(DEAD_LETTER_PAGE, { offset, limit });
  }

  async deadLettersBefore(before: string | null, count: number): Promise<DeadLetterRecord[]> {
    await this.ready();
    const entries = (await this.command(
      'xrevrange',
      this.keys.dead,
      before === null ? '+' : `(${before}`,
      '-',
      'COUNT',
      Math.max(1, Math.floor(count)),
    )) as StreamEntry[];
    return entries.map(deadLetterEntry);
  }

  async deadLettersById(ids: readonly string[]): Promise<(DeadLetterRecord | null)[]> {
    if (ids.length === 0) return [];
    await this.ready();
    // one O(log N) range per id, sent together (the client pipelines them)
    const found = await Promise.all(
      ids.map((id) => this.command('xrange', this.keys.dead, id, id) as Promise<StreamEntry[]>),
    );
    return found.map((entries) => (entries[0] ? deadLetterEntry(entries[0]) : null));
  }

  async deleteDeadLetters(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    await this.ready();
    return Number(await this.command('xdel', this.keys.dead, ...ids));
  }

  // -- channels (docket-channels.ts) ----------------------------------------------------

  get listening(): boolean {
    return this.channels.listening;
  }

  onReconnect(listener: () => void): () => void {
    return this.channels.onReconnect(listener);
  }

  onCancel(handler: (key: string) => void): Promise<Unsubscribe> {
    return this.channels.onCancel(handler);
  }

  onWake(handler: (due: number) => void): Promise<Unsubscribe> {
    return this.channels.onWake(handler);
  }

  onEvents(handler: (event: DocketEvent) => void): Promise<Unsubscribe> {
    return this.channels.onEvents(handler);
  }

  onStrike(handler: () => void): Promise<Unsubscribe> {
    return this.channels.onStrike(handler);
  }

  onExecution(
    key: string,
    handler: (event: StateEvent | ProgressEvent) => void,
  ): Promise<Unsubscribe> {
    return this.channels.onExecution(key, handler);
  }

  onAnyState(handler: (event: StateEvent) => void): Promise<Unsubscribe> {
    return this.channels.onAnyState(handler);
  }
}
