import { randomFillSync } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { CONSUMER_GROUP } from '../docket.tokens.js';
import { DocketRuntime } from '../docket.runtime.js';
import { OPERATORS } from '../behaviours/strike-list.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { decodeArgs, encodeArgs, encodeResult } from '../execution/codec.js';
import { Execution } from '../execution/execution.js';
import type { TaskArgs, TaskRef } from '../execution/task-args.type.js';
import type {
  AddOptions,
  ExecutionState,
  ReplaceOptions,
} from '../interfaces/execution.interface.js';
import type {
  DeadLetter,
  DocketSnapshot,
  FutureTask,
  RunningTask,
  WorkerInfo,
} from '../interfaces/snapshot.interface.js';
import type { StrikeCondition } from '../interfaces/strike-condition.interface.js';

type ScheduleReply = [string, string, string, string, string, string, string];

/** One execution to schedule (add, replace, or the worker's own). */
interface ScheduleRequest {
  key: string;
  taskName: string;
  args: unknown[];
  encoded: string;
  when: number;
  attempt: number;
  mode: 'add' | 'replace';
  traceparent?: string;
  tracestate?: string;
}

interface PendingSchedule {
  request: ScheduleRequest;
  resolve: (reply: ScheduleReply) => void;
  reject: (error: unknown) => void;
}

/** Most schedules in one schedule-many call, and most bytes of arguments. */
const BATCH_MAX = 32;
const BATCH_BYTES = 1_048_576;

/** Random bytes for default keys, drawn from the OS 4 KiB at a time instead of 16 bytes per key. */
const KEY_RANDOM = Buffer.alloc(4096);
let keyRandomAt = KEY_RANDOM.length;
/** Time and counter of the last default key: keys made in one millisecond count up from a random start. */
const keyClock = { msecs: -Infinity, seq: 0 };

/** A fresh UUIDv7 (RFC 9562: 48-bit ms time, 74 random bits), increasing within this process. */
function newKey(): string {
  if (keyRandomAt + 16 > KEY_RANDOM.length) {
    randomFillSync(KEY_RANDOM);
    keyRandomAt = 0;
  }
  const random = KEY_RANDOM.subarray(keyRandomAt, keyRandomAt + 16);
  keyRandomAt += 16;
  const now = Date.now();
  if (now > keyClock.msecs) {
    keyClock.msecs = now;
    // a random 31-bit start for the counter of this millisecond
    keyClock.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
  } else if ((keyClock.seq = (keyClock.seq + 1) | 0) === 0) {
    keyClock.msecs++; // the counter wrapped: borrow the next millisecond
  }
  return uuidv7({ random, msecs: keyClock.msecs, seq: keyClock.seq });
}

function decodeOrRaw(text: string): unknown[] | string {
  try {
    return decodeArgs(text);
  } catch {
    return text;
  }
}

/** The producer API: schedule, replace and cancel tasks; inspect the docket. */
@Injectable()
export class DocketClient {
  /** Schedules waiting to be sent together at the end of this turn of the event loop. */
  private pending: PendingSchedule[] = [];
  private pendingBytes = 0;

  constructor(private readonly runtime: DocketRuntime) {}

  /** The docket's name. */
  get name(): string {
    return this.runtime.options.name;
  }

  /**
   * Schedule `task` under `key` (a fresh UUIDv7 by default) at `when` or after `delay` (now by
   * default). An `add` of a key that is scheduled, queued or running changes nothing and
   * returns `disposition: 'already_scheduled'`.
   */
  add<F extends (...args: any[]) => unknown>(
    task: F,
    options?: AddOptions,
  ): (...args: TaskArgs<F>) => Promise<Execution>;
  add(task: string, options?: AddOptions): (...args: unknown[]) => Promise<Execution>;
  add(task: TaskRef, options: AddOptions = {}): (...args: any[]) => Promise<Execution> {
    return this.scheduler(task, options, 'add');
  }

  /**
   * Add `task` once per entry of `argsList` (each its own execution with a fresh key), at
   * `when` or after `delay`; resolves with the executions in the same order. The adds travel
   * together, a few dozen per Redis call.
   */
  addMany<F extends (...args: any[]) => unknown>(
    task: F,
    argsList: readonly TaskArgs<F>[],
    options?: Omit<AddOptions, 'key'>,
  ): Promise<Execution[]>;
  addMany(
    task: string,
    argsList: readonly unknown[][],
    options?: Omit<AddOptions, 'key'>,
  ): Promise<Execution[]>;
  addMany(
    task: TaskRef,
    argsList: readonly unknown[][],
    options: Omit<AddOptions, 'key'> = {},
  ): Promise<Execution[]> {
    if (!Array.isArray(argsList) || argsList.some((args) => !Array.isArray(args))) {
      throw new TypeError('addMany(task, argsList): argsList is an array of argument arrays');
    }
    if ((options as AddOptions).key !== undefined) {
      throw new TypeError('addMany() gives each execution its own key: use add() for a known key');
    }
    const add = this.scheduler(task, options, 'add');
    return Promise.all(argsList.map((args) => add(...args)));
  }

  /** Atomically remove any scheduled or queued copy of `key` and schedule this one. */
  replace<F extends (...args: any[]) => unknown>(
    task: F,
    options: ReplaceOptions,
  ): (...args: TaskArgs<F>) => Promise<Execution>;
  replace(task: string, options: ReplaceOptions): (...args: unknown[]) => Promise<Execution>;
  replace(task: TaskRef, options: ReplaceOptions): (...args: any[]) => Promise<Execution> {
    if (!options || typeof options.key !== 'string') {
      throw new TypeError('replace() needs a key: replace(task, { key, when | delay })');
    }
    return this.scheduler(task, options, 'replace');
  }

  private scheduler(
    task: TaskRef,
    options: AddOptions,
    mode: 'add' | 'replace',
  ): (...args: unknown[]) => Promise<Execution> {
    const { registry, strikes } = this.runtime;
    const taskName = registry.resolveName(task, this.runtime.hasWorker);
    this.when(options); // a bad when or delay fails here, before anything is called
    if (options.key !== undefined && (typeof options.key !== 'string' || options.key === '')) {
      throw new TypeError(
        `a task key must be a non-empty string, not ${JSON.stringify(options.key)}`,
      );
    }
    // Each call is its own execution: the default key and a delay are taken at call time.
    return async (...args: unknown[]) => {
      const when = this.when(options);
      const key = options.key ?? newKey();
      const encoded = encodeArgs(args);
      const size = Buffer.byteLength(encoded);
      if (size > this.runtime.options.maxPayloadBytes) {
        throw new PayloadTooLargeError(
          `arguments of task "${taskName}" (key ${key}) are ${size} bytes serialized; ` +
            `maxPayloadBytes is ${this.runtime.options.maxPayloadBytes}`,
        );
      }
      const { metrics, tracing } = this.runtime;
      metrics.count(mode === 'add' ? 'added' : 'replaced', { task: taskName });
      await strikes.ready();
      if (strikes.list.matches(taskName, registry.parametersOf(task, taskName), args)) {
        metrics.count('stricken', { task: taskName });
        return new Execution(this.runtime, {
          key,
          taskName,
          args,
          when: new Date(when),
          attempt: 1,
          disposition: 'struck',
          state: 'cancelled',
        });
      }
      const execution = await tracing.produce(
        `docket.${mode}`,
        { 'docket.task': taskName, 'docket.key': key, 'docket.when': when },
        (trace) =>
          this.schedule({ key, taskName, args, encoded, when, attempt: 1, mode, ...trace }),
      );
      if (execution.disposition === 'scheduled') metrics.count('scheduled', { task: taskName });
      return execution;
    };
  }

  private when(options: AddOptions): number {
    if (options.when !== undefined) {
      const ms = options.when instanceof Date ? options.when.getTime() : NaN;
      if (!Number.isFinite(ms)) throw new TypeError('"when" must be a valid Date');
      return ms;
    }
    if (options.delay !== undefined) {
      if (typeof options.delay !== 'number' || !Number.isFinite(options.delay)) {
        throw new TypeError('"delay" must be a number of milliseconds');
      }
      return Date.now() + options.delay;
    }
    return Date.now();
  }

  /**
   * @internal Write one schedule; used by add, replace and the worker. The schedules asked for in
   * one turn of the event loop go to Redis in one script call (schedule-many), in order.
   */
  async schedule(request: ScheduleRequest): Promise<Execution> {
    const [disposition, state, when, generation, taskName, encoded, attempt] =
      await new Promise<ScheduleReply>((resolve, reject) => {
        if (this.pending.length === 0) process.nextTick(() => void this.flush());
        this.pending.push({ request, resolve, reject });
        this.pendingBytes += request.encoded.length;
        if (this.pending.length >= BATCH_MAX || this.pendingBytes >= BATCH_BYTES) {
          void this.flush();
        }
      });
    // an already scheduled key answers with the live execution, not with this request
    const live = disposition === 'already_scheduled';
    return new Execution(this.runtime, {
      key: request.key,
      taskName: live ? taskName : request.taskName,
      args: live ? [decodeOrRaw(encoded)].flat() : request.args,
      when: new Date(Number(when)),
      attempt: live ? Number(attempt) : request.attempt,
      disposition: disposition as 'scheduled' | 'already_scheduled',
      state: state as ExecutionState,
      generation: Number(generation),
    });
  }

  /** Send the pending schedules: one alone with schedule-4, several with schedule-many. */
  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    this.pendingBytes = 0;
    if (batch.length === 0) return;
    const { connection, keys } = this.runtime;
    try {
      await connection.ready();
      const now = Date.now();
      if (batch.length === 1) {
        const [{ request: q, resolve }] = batch;
        const reply = await connection.script<ScheduleReply>(
          'schedule',
          [keys.stream, keys.queue, keys.parked(q.key), keys.runs(q.key)],
          [
            ...[q.key, q.taskName, q.encoded, q.when, q.attempt, now, q.mode],
            ...[CONSUMER_GROUP, keys.prefix, q.traceparent ?? '', q.tracestate ?? ''],
          ],
        );
        resolve(reply);
        return;
      }
      const args: (string | number)[] = [now, CONSUMER_GROUP, keys.prefix];
      for (const { request: q } of batch) {
        args.push(q.key, q.taskName, q.encoded, q.when, q.attempt, q.mode);
        args.push(q.traceparent ?? '', q.tracestate ?? '');
      }
      const replies = await connection.script<string[]>(
        'scheduleMany',
        [keys.stream, keys.queue],
        args,
      );
      batch.forEach(({ resolve }, i) => resolve(replies.slice(i * 7, i * 7 + 7) as ScheduleReply));
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }

  /**
   * Cancel `key`: a scheduled or queued task never starts; a running one has its `signal`
   * aborted. A finished or unknown key is left alone.
   */
  async cancel(key: string): Promise<void> {
    const { connection, keys, options, metrics, tracing } = this.runtime;
    await connection.ready();
    const [state, task] = await tracing.produce('docket.cancel', { 'docket.key': key }, () =>
      connection.script<[string, string]>(
        'cancel',
        [keys.stream, keys.queue, keys.parked(key), keys.runs(key)],
        [key, CONSUMER_GROUP, Date.now(), options.executionTtl, keys.prefix],
      ),
    );
    if (state === 'scheduled' || state === 'queued') metrics.count('cancelled', { task });
  }

  /** The execution of `key` as Redis knows it now, or null. */
  async getExecution(key: string): Promise<Execution | null> {
    const execution = new Execution(this.runtime, {
      key,
      taskName: '',
      args: [],
      when: new Date(0),
      attempt: 1,
      disposition: 'scheduled',
      state: 'scheduled',
    });
    return (await execution.sync()) ? execution : null;
  }

  /**
   * Block adds and queued tasks that match `condition` (a task, a parameter condition, or
   * both), in every process of this docket, until `restore`.
   */
  async strike(condition: StrikeCondition): Promise<void> {
    await this.writeStrike('strike', condition);
  }

  /** Lift a strike given with the same condition. */
  async restore(condition: StrikeCondition): Promise<void> {
    await this.writeStrike('restore', condition);
  }

  private async writeStrike(op: 'strike' | 'restore', condition: StrikeCondition): Promise<void> {
    const task =
      condition.task === undefined ? '' : this.runtime.registry.resolveName(condition.task, false);
    const operator = condition.operator ?? '==';
    if (!OPERATORS.has(operator)) {
      throw new TypeError(
        `strike operator "${operator}" is not one of ${[...OPERATORS].join(' ')}`,
      );
    }
    if (!task && !condition.parameter) {
      throw new TypeError('a strike needs a task, a parameter, or both');
    }
    if (
      operator === 'between' &&
      (!Array.isArray(condition.value) || condition.value.length !== 2)
    ) {
      throw new TypeError('the value of a "between" strike is [low, high]');
    }
    const value = condition.parameter ? encodeResult(condition.value) : '';
    const { connection, keys, strikes } = this.runtime;
    await connection.ready();
    await connection.script(
      'strike',
      [keys.strikes],
      [op, task, condition.parameter ?? '', operator, value, keys.strikesChannel],
    );
    await strikes.ready();
    await strikes.catchUp();
  }

  /** What is running and waiting now, and which workers are alive. */
  async snapshot(): Promise<DocketSnapshot> {
    return this.take(1_000);
  }

  /** @internal A snapshot that lists every task, however many (the testing kit's). */
  snapshotAll(): Promise<DocketSnapshot> {
    return this.take(Number.MAX_SAFE_INTEGER);
  }

  /** A snapshot listing at most `limit` stream entries, future tasks and waiters of each line. */
  private async take(limit: number): Promise<DocketSnapshot> {
    const { connection, keys } = this.runtime;
    const last = String(limit - 1);
    await connection.ready();
    const takenAt = new Date();
    const redis = connection.commands;
    const [streamLength, queueLength, entries, queued, lines] = (await redis
      .pipeline()
      .xlen(keys.stream)
      .zcard(keys.queue)
      .xrange(keys.stream, '-', '+', 'COUNT', limit)
      .zrange(keys.queue, '0', last)
      .smembers(keys.lines)
      .exec())!.map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [number, number, [string, string[]][], string[], string[]];
    const streamKeys = entries
      .map(([, fields]) => fields[fields.indexOf('key') + 1])
      .filter((key): key is string => typeof key === 'string');
    const waiting: string[] = [];
    if (lines.length > 0) {
      const reads = redis.pipeline();
      for (const line of lines) reads.lrange(line, '0', last);
      for (const [, keysInLine] of (await reads.exec()) ?? []) {
        waiting.push(...((keysInLine as string[] | null) ?? []));
      }
    }
    // a key can be both on the stream (its running message) and in the queue (rescheduled)
    const all = [...new Set([...streamKeys, ...queued, ...waiting])];
    const pipeline = redis.pipeline();
    for (const key of all) {
      pipeline.hmget(
        keys.runs(key),
        'state',
        'task',
        'args',
        'when',
        'attempt',
        'worker',
        'startedAt',
      );
    }
    const rows = all.length ? ((await pipeline.exec()) ?? []) : [];
    const running: RunningTask[] = [];
    const future: FutureTask[] = [];
    rows.forEach(([error, value], i) => {
      if (error) return;
      const [state, taskName, args, when, attempt, worker, startedAt] = value as (string | null)[];
      if (!state || !taskName) return;
      const base = {
        key: all[i],
        taskName,
        args: decodeOrRaw(args ?? '[]'),
        when: new Date(Number(when)),
        attempt: Number(attempt ?? 1),
      };
      if (state === 'running') {
        running.push({ ...base, worker: worker ?? '', startedAt: new Date(Number(startedAt)) });
      } else if (state === 'queued' || state === 'scheduled') {
        future.push(base);
      }
    });
    future.sort((a, b) => a.when.getTime() - b.when.getTime());
    return {
      takenAt,
      totalTasks: streamLength + queueLength + waiting.length,
      running,
      future,
      workers: await this.workers(),
    };
  }

  /** Workers whose heartbeat is recent. */
  async workers(): Promise<WorkerInfo[]> {
    return this.liveWorkers(this.runtime.keys.workers);
  }

  /** Live workers that run `task`. */
  async taskWorkers(task: string): Promise<WorkerInfo[]> {
    return this.liveWorkers(this.runtime.keys.taskWorkers(task));
  }

  /**
   * Workers seen within the liveness window, from `registry` (the workers zset, or a task's
   * task-workers zset, whose members are checked against the workers zset).
   */
  private async liveWorkers(registry: string): Promise<WorkerInfo[]> {
    const { connection, keys, options } = this.runtime;
    await connection.ready();
    const redis = connection.commands;
    const since = Date.now() - options.heartbeatInterval * options.missedHeartbeats;
    const members = await redis.zrange(registry, '0', '-1');
    if (members.length === 0) return [];
    const scores = (await redis.zmscore(keys.workers, ...members)) as (string | null)[];
    const live = members
      .map((name, i) => ({ name, seen: Number(scores[i] ?? 0) }))
      .filter((w) => w.seen >= since);
    const pipeline = redis.pipeline();
    for (const { name } of live) pipeline.smembers(keys.workerTasks(name));
    const tasks = live.length ? ((await pipeline.exec()) ?? []) : [];
    return live
      .map(({ name, seen }, i) => ({
        name,
        lastSeen: new Date(seen),
        tasks: ((tasks[i]?.[1] as string[] | undefined) ?? []).sort(),
      }))
      .sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime());
  }

  /** Remove every scheduled and queued task (running ones go on); returns how many. */
  async clear(): Promise<number> {
    const { connection, keys, options } = this.runtime;
    await connection.ready();
    return connection.script<number>(
      'clear',
      [keys.stream, keys.queue],
      [keys.prefix, CONSUMER_GROUP, Date.now(), options.executionTtl],
    );
  }

  /** Messages that could not run and executions that failed their last attempt. */
  async deadLetters(): Promise<DeadLetter[]> {
    const { connection, keys } = this.runtime;
    await connection.ready();
    const entries = await connection.commands.xrange(keys.dead, '-', '+');
    return entries.map(([, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
      return {
        key: f.key ?? '',
        taskName: f.task ?? '',
        args: decodeOrRaw(f.args ?? ''),
        error: f.error ?? '',
        attempt: Number(f.attempt ?? 1),
        deadAt: new Date(Number(f.deadAt)),
      };
    });
  }

  /**
   * Schedule dead letters again, now, with their key and arguments; returns how many were
   * scheduled. A dead letter whose arguments cannot be decoded stays.
   */
  async retryDeadLetter(target: string | { all: true }): Promise<number> {
    const { connection, keys } = this.runtime;
    await connection.ready();
    const entries = await connection.commands.xrange(keys.dead, '-', '+');
    let retried = 0;
    for (const [id, fields] of entries) {
      const f: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
      if (typeof target === 'string' && f.key !== target) continue;
      if (!f.key || !f.task) continue;
      let args: unknown[];
      try {
        args = decodeArgs(f.args ?? '');
      } catch {
        continue;
      }
      const execution = await this.schedule({
        key: f.key,
        taskName: f.task,
        args,
        encoded: f.args,
        when: Date.now(),
        attempt: 1,
        mode: 'add',
      });
      // a key that is live again keeps its letter: nothing was scheduled for it
      if (execution.disposition !== 'scheduled') continue;
      await connection.commands.xdel(keys.dead, id);
      retried++;
    }
    return retried;
  }

  /** Delete every dead letter; returns how many there were. */
  async purgeDeadLetters(): Promise<number> {
    const { connection, keys } = this.runtime;
    await connection.ready();
    const replies = await connection.commands.multi().xlen(keys.dead).del(keys.dead).exec();
    return Number(replies?.[0]?.[1] ?? 0);
  }
}
