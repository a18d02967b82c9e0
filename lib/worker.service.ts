import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Cluster } from 'ioredis';
import { CONSUMER_GROUP } from './docket.tokens.js';
import { DocketClient } from './producer/docket.client.js';
import type { ResolvedWorkerOptions } from './config/resolve-options.js';
import { DocketRuntime } from './docket.runtime.js';
import { ExecutionCancelledError } from './errors/execution-cancelled.error.js';
import type { RedisClient } from './store/connection.js';
import { runScript } from './store/scripts.js';
import { SchedulerService } from './scheduler.service.js';
import { sleep, within } from './util/time.js';
import { Finisher, type Finish } from './worker/finisher.js';
import { Heartbeat } from './worker/heartbeat.js';
import { RESEED_INTERVAL, seedAutomaticTasks } from './worker/automatic-tasks.js';
import {
  decodeMessage,
  isBadMessage,
  type BadMessage,
  type StreamEntry,
  type TaskMessage,
} from './worker/message.js';
import { RunningTask, runTask } from './worker/task-runner.js';
import { admissionFor } from './behaviours/task-plan.js';
import { argumentCountProblem } from './explorer/arguments.js';

type Mode = 'stopped' | 'running' | 'draining';

/** A message read from the stream and not yet claimed. */
interface Held {
  entry: StreamEntry;
  redelivered: boolean;
}

/**
 * While handlers take less than this on average (ms), the loop reads up to one batch ahead of
 * the free slots, so that a read is never between a batch's end and the next batch's claim.
 */
const READ_AHEAD_MS = 10;

/** The smallest claim worth splitting a batch for (see `pump`). */
const HALF_BATCH = 10;

/**
 * The worker of this process: the delivery loop (reads and redelivers tasks up to its
 * concurrency, renews the leases of the ones it runs), the scheduler and the heartbeat.
 */
@Injectable()
export class DocketWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DocketWorker');
  /** Messages this worker holds: handler running, or its end being written. */
  private readonly running = new Map<string, RunningTask>();
  /** Handlers running now: what the concurrency bounds. */
  private busy = 0;
  /** Messages in claim calls in flight: their slots are taken until the claim answers. */
  private claiming = 0;
  /** Claim calls in flight. */
  private claims = 0;
  /** Messages read ahead, waiting for a free slot; pending for this worker, leases renewed. */
  private held: Held[] = [];
  /** Bumped when the loops stop or abandon their tasks: a late claim answer is then ignored. */
  private epoch = 0;
  private pumpScheduled = false;
  /** Average time a handler held its slot (ms), -1 before the first one ended. */
  private handlerMs = -1;
  private readonly byKey = new Map<string, RunningTask>();
  private mode: Mode = 'stopped';
  private loop?: Promise<void>;
  private blocking?: RedisClient;
  private blockingId?: number;
  private reading = false;
  /** An interruption asked for while no read was in flight: the next read returns at once. */
  private interrupted = false;
  private stopSignal = new AbortController();
  private slotFreed?: () => void;
  private finishWaiters: (() => void)[] = [];
  private foreverRuns = 0;
  private limits?: Map<string, number>;
  private leaseTimer?: NodeJS.Timeout;
  private undoReconnect?: () => unknown;
  private seedTimer?: NodeJS.Timeout;
  private lastAutoclaim = 0;
  private autoclaimCursor = '0-0';
  private undoCancel?: () => Promise<void>;
  private heartbeat?: Heartbeat;
  private finisher?: Finisher;
  private closed = false;
  private closeWaiters: (() => void)[] = [];
  /** When the delivery loop last completed a read (epoch ms); the start time before that. */
  lastPollAt = 0;
  /** When the delivery loop last handled a Redis error and began to wait for a reconnection. */
  lastErrorAt = 0;
  /** Redis errors the loops met. */
  disruptions = 0;

  constructor(
    private readonly runtime: DocketRuntime,
    private readonly client: DocketClient,
    private readonly scheduler: SchedulerService,
  ) {}

  /** This worker's consumer name. */
  get name(): string {
    return this.options.name;
  }

  /** Whether the loops run: 'stopped', 'running' or 'draining' (shutting down). */
  get state(): Mode {
    return this.mode;
  }

  /** How many tasks this worker runs now. */
  get activeTasks(): number {
    return this.busy;
  }

  private get options(): ResolvedWorkerOptions {
    const worker = this.runtime.options.worker;
    if (!worker) {
      throw new Error('this process has no worker: DocketModule was configured with worker: false');
    }
    return worker;
  }

  onApplicationBootstrap(): void {
    const worker = this.runtime.options.worker;
    if (worker && worker.autoStart) void this.runForever();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdown();
  }

  /** Work until the application closes. */
  async runForever(): Promise<void> {
    this.foreverRuns++;
    try {
      this.start();
      await this.untilClosed();
    } finally {
      this.foreverRuns--;
    }
  }

  /**
   * Work until the stream and the queue are empty (future tasks included) and nothing runs,
   * or until the application closes.
   */
  async runUntilFinished(): Promise<void> {
    this.start();
    await Promise.race([
      new Promise<void>((resolve) => {
        this.finishWaiters.push(resolve);
        this.interruptRead();
      }),
      this.untilClosed(),
    ]);
    if (this.foreverRuns === 0 && this.finishWaiters.length === 0) await this.stopLoops();
  }

  /** Like `runUntilFinished`, executing each named key at most `n` times. */
  async runAtMost(limits: Record<string, number>): Promise<void> {
    this.limits = new Map(Object.entries(limits));
    try {
      await this.runUntilFinished();
    } finally {
      this.limits = undefined;
    }
  }

  private untilClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  private start(): void {
    const options = this.options;
    if (this.closed) throw new Error('the docket worker has shut down');
    if (this.mode !== 'stopped') return;
    this.mode = 'running';
    this.lastPollAt = Date.now();
    this.stopSignal = new AbortController();
    const onDisruption = (error: unknown) => this.disrupted(error);
    this.finisher = new Finisher(this.runtime, onDisruption, () => options.reconnectionDelay, {
      consumer: options.name,
      room: () => (this.mode === 'running' ? this.room() : 0),
      // read along while running: held like the loop's own reads (a drain starts them too)
      take: (entries) => {
        for (const entry of entries) this.held.push({ entry, redelivered: false });
        this.pump();
      },
    });
    this.heartbeat = new Heartbeat(
      this.runtime,
      options.name,
      () => this.runtime.registry.names,
      onDisruption,
    );
    this.scheduler.onDisruption = onDisruption;
    this.loop = this.deliver();
  }

  private disrupted(error: unknown): void {
    this.disruptions++;
    this.runtime.metrics.disruption(this.runtime.options.worker ? this.options.name : '');
    this.logger.debug?.(`Redis disruption: ${(error as Error)?.message ?? error}`);
  }

  /** Set up what the loop needs; safe to call again after a failure. */
  private async prepare(): Promise<void> {
    const { connection, keys, subscriptions } = this.runtime;
    await connection.ready(connection.commands, this.options.reconnectionDelay || 1_000);
    try {
      await connection.commands.xgroup('CREATE', keys.stream, CONSUMER_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
    if (!this.blocking) {
      this.blocking = connection.duplicate();
      if (!(this.blocking instanceof Cluster)) {
        const blocking = this.blocking;
        const fetchId = () =>
          void blocking.client('ID').then(
            (id) => (this.blockingId = Number(id)),
            () => undefined,
          );
        blocking.on('ready', fetchId);
        if (blocking.status === 'ready') fetchId();
      }
    }
    if (!this.undoCancel) {
      this.undoCancel = await subscriptions.subscribe(keys.cancelChannel, (key) =>
        this.cancelled(key),
      );
    }
    await this.runtime.strikes.ready();
    await this.scheduler.start();
    this.heartbeat!.start();
    this.renewLeases();
    if (this.options.scheduleAutomaticTasks) this.seedAutomatic();
    this.logger.log(
      `worker ${this.options.name} started on docket "${keys.name}" (${connection.description}), ` +
        `concurrency ${this.options.concurrency}, tasks: ${this.runtime.registry.names.sort().join(', ')}`,
    );
  }

  private async deliver(): Promise<void> {
    let prepared = false;
    while (this.mode === 'running') {
      try {
        if (!prepared) {
          await this.prepare();
          prepared = true;
        }
        await this.step();
      } catch (error) {
        if (this.mode !== 'running') break;
        const message = (error as Error)?.message ?? String(error);
        if (message.includes('NOGROUP')) {
          prepared = false;
          continue;
        }
        // a loop that handles an outage is alive; readiness reports Redis
        this.lastErrorAt = Date.now();
        this.disrupted(error);
        this.logger.warn(
          `delivery loop: ${message}; retrying in ${this.options.reconnectionDelay}ms`,
        );
        await sleep(this.options.reconnectionDelay, this.stopSignal.signal);
      }
    }
  }

  /**
   * One turn of the delivery loop: read as many messages as there is room for. Claims run
   * beside the loop (see `pump`), so the next read is on its way while a batch is claimed.
   */
  /** How many more messages this worker may read now. */
  private room(): number {
    const { concurrency } = this.options;
    // Read ahead only while handlers are quick: a message read ahead waits for a slot here.
    const limit = this.readsAhead() ? 2 * concurrency : concurrency;
    return limit - this.busy - this.claiming - this.held.length;
  }

  private async step(): Promise<void> {
    const room = this.room();
    if (room <= 0) {
      await new Promise<void>((resolve) => (this.slotFreed = resolve));
      this.slotFreed = undefined;
      return;
    }
    let entries = await this.autoclaim(room);
    const redelivered = entries.length > 0;
    if (!redelivered) entries = await this.read(room);
    this.lastPollAt = Date.now();
    if (entries.length > 0) {
      for (const entry of entries) this.held.push({ entry, redelivered });
      this.pump();
    } else if (this.finishWaiters.length > 0 && this.idle() && (await this.isEmpty())) {
      // Only a read that found nothing (or was interrupted) asks whether all work is done.
      for (const resolve of this.finishWaiters.splice(0)) resolve();
    }
  }

  /** Nothing runs, nothing is being claimed and nothing waits for a slot. */
  private idle(): boolean {
    return this.running.size === 0 && this.claiming === 0 && this.held.length === 0;
  }

  /**
   * Claim held messages into the free slots. With quick handlers and at least HALF_BATCH * 2
   * slots, one claim of at most half the slots is in flight at a time, and the next one
   * leaves as soon as it answers: the handlers of one half run while Redis claims the other.
   * (Below that, the cost of a second claim call outweighs what the overlap gains.)
   */
  private pump(): void {
    const { concurrency } = this.options;
    const halves = concurrency >= 2 * HALF_BATCH && this.readsAhead();
    const most = halves ? Math.ceil(concurrency / 2) : concurrency;
    while (this.held.length > 0 && this.mode !== 'stopped') {
      if (halves && this.claims > 0) return;
      const free = concurrency - this.busy - this.claiming;
      if (free <= 0) return;
      this.dispatch(this.held.splice(0, Math.min(free, most)));
    }
  }

  /** Handlers are quick (on average under READ_AHEAD_MS). */
  private readsAhead(): boolean {
    return this.handlerMs >= 0 && this.handlerMs < READ_AHEAD_MS;
  }

  /**
   * Pump and wake the loop once the current turn of the event loop has settled, so that the
   * slots of handlers ending together are filled by one claim and counted by one read.
   */
  private slotsChanged(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    process.nextTick(() => {
      this.pumpScheduled = false;
      this.pump();
      this.slotFreed?.();
      if (this.idle()) this.becameIdle();
    });
  }

  private becameIdle(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
    if (this.finishWaiters.length > 0) this.interruptRead();
  }

  private async isEmpty(): Promise<boolean> {
    const { connection, keys } = this.runtime;
    const replies = await connection.commands.pipeline().xlen(keys.stream).zcard(keys.queue).exec();
    return (replies ?? []).every(([error, count]) => !error && count === 0);
  }

  private async read(count: number): Promise<StreamEntry[]> {
    const { keys } = this.runtime;
    const blocking = this.blocking!;
    await this.runtime.connection.ready(blocking);
    if (this.interrupted || this.mode !== 'running') {
      this.interrupted = false;
      return [];
    }
    this.reading = true;
    try {
      const reply = (await blocking.xreadgroup(
        'GROUP',
        CONSUMER_GROUP,
        this.options.name,
        'COUNT',
        count,
        'BLOCK',
        this.options.minimumCheckInterval,
        'STREAMS',
        keys.stream,
        '>',
      )) as [string, StreamEntry[]][] | null;
      return reply?.[0]?.[1] ?? [];
    } finally {
      this.reading = false;
    }
  }

  /** Take over messages whose worker stopped renewing them for `redeliveryTimeout`. */
  private async autoclaim(count: number): Promise<StreamEntry[]> {
    const { redeliveryTimeout } = this.options;
    const now = Date.now();
    if (now - this.lastAutoclaim < Math.min(redeliveryTimeout / 4, 30_000)) return [];
    this.lastAutoclaim = now;
    const { connection, keys } = this.runtime;
    const [cursor, entries] = (await connection.commands.xautoclaim(
      keys.stream,
      CONSUMER_GROUP,
      this.options.name,
      redeliveryTimeout,
      this.autoclaimCursor,
      'COUNT',
      count,
    )) as [string, (StreamEntry | null)[]];
    this.autoclaimCursor = cursor;
    if (cursor !== '0-0') this.lastAutoclaim = 0;
    return entries.filter(
      (entry): entry is StreamEntry => Array.isArray(entry) && entry[1] !== null,
    );
  }

  /** Claim held messages (their slots are free) and start the tasks that may run. */
  private dispatch(batch: Held[]): void {
    const claimable: { message: TaskMessage; admission: string }[] = [];
    const finishes: Finish[] = [];
    for (const { entry, redelivered } of batch) {
      const message = decodeMessage(entry, redelivered);
      if (isBadMessage(message)) {
        finishes.push(this.deadLetter(message, message.reason));
        continue;
      }
      if (!this.runtime.registry.get(message.taskName)) {
        const known = this.runtime.registry.names.sort().join(', ');
        finishes.push(
          this.deadLetter(
            { ...message, reason: '' },
            `UnknownTaskError: this worker has no task "${message.taskName}" (it has: ${known})`,
          ),
        );
        continue;
      }
      if (this.running.has(message.id)) continue; // its lease lapsed while it runs here
      const definition = this.runtime.registry.get(message.taskName)!;
      const wrongArguments = argumentCountProblem(definition, message.args.length);
      if (wrongArguments) {
        finishes.push(this.deadLetter({ ...message, reason: '' }, wrongArguments));
        continue;
      }
      const admission = admissionFor(definition.plan, message.args, this.options.redeliveryTimeout);
      // Not run: the end carries the admission rules so that a reserved slot is given back.
      const skip = (): Finish => ({ ...this.finishBase(message), outcome: 'cancelled', admission });
      if (
        this.runtime.strikes.list.matches(message.taskName, definition.parameters, message.args)
      ) {
        this.logger.log(`🗙 ${message.taskName}(${message.key}) struck`);
        this.runtime.metrics.count('stricken', {
          task: message.taskName,
          worker: this.options.name,
        });
        finishes.push(skip());
        continue;
      }
      const limit = this.limits?.get(message.key);
      if (limit !== undefined) {
        if (limit <= 0) {
          finishes.push(skip());
          continue;
        }
        this.limits!.set(message.key, limit - 1);
      }
      claimable.push({ message, admission });
    }
    for (const finish of finishes) void this.finisher!.finish(finish);
    if (claimable.length === 0) return;
    this.claiming += claimable.length;
    this.claims++;
    void this.claim(claimable, this.epoch);
  }

  private async claim(
    claimable: { message: TaskMessage; admission: string }[],
    epoch: number,
  ): Promise<void> {
    const { connection, keys, options } = this.runtime;
    const now = Date.now();
    const args: (string | number)[] = [
      keys.prefix,
      CONSUMER_GROUP,
      this.options.name,
      now,
      options.executionTtl,
    ];
    for (const { message: m, admission } of claimable)
      args.push(m.key, m.generation, m.id, admission);
    let statuses: string[];
    try {
      statuses = await runScript<string[]>(connection.commands, 'claim', [keys.stream], args);
    } catch (error) {
      // The messages stay pending for this worker: redelivery takes them over.
      if (epoch === this.epoch) {
        this.claims--;
        this.claiming -= claimable.length;
        this.slotsChanged();
      }
      if (this.mode === 'stopped') return;
      this.lastErrorAt = Date.now();
      this.disrupted(error);
      this.logger.warn(`claiming ${claimable.length} task(s): ${(error as Error)?.message}`);
      return;
    }
    // Stopped meanwhile (tasks abandoned): the claimed messages are left to redelivery.
    if (epoch !== this.epoch) return;
    this.claims--;
    // The next claim leaves before these handlers run (their slots still count as claimed).
    this.pump();
    this.claiming -= claimable.length;
    this.slotsChanged();
    const { metrics } = this.runtime;
    claimable.forEach(({ message, admission }, i) => {
      const labels = { task: message.taskName, worker: this.options.name };
      switch (statuses[i]) {
        case 'run':
          metrics.count('started', labels);
          if (message.redelivered) metrics.count('redelivered', labels);
          metrics.punctuality(labels, (now - message.when) / 1_000);
          this.execute(new RunningTask(message, now, admission));
          return;
        case 'superseded':
          metrics.count('superseded', labels);
          break;
        case 'cancelled':
          metrics.count('cancelled', labels);
          break;
      }
      this.logger.debug?.(`${message.taskName}(${message.key}) not started: ${statuses[i]}`);
    });
  }

  private finishBase(message: TaskMessage | BadMessage) {
    return {
      key: message.key,
      generation: message.generation,
      id: message.id,
      attempt: message.attempt,
      taskName: message.taskName,
      rawArgs: message.rawArgs,
    };
  }

  private deadLetter(message: TaskMessage | BadMessage, reason: string): Finish {
    this.logger.error(`message ${message.id} (key ${message.key || '?'}) dead-lettered: ${reason}`);
    return { ...this.finishBase(message), outcome: 'dead', error: reason };
  }

  private execute(task: RunningTask): void {
    const { message } = task;
    this.running.set(message.id, task);
    this.byKey.set(message.key, task);
    this.busy++;
    const definition = this.runtime.registry.get(message.taskName)!;
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld || task.abandoned) return;
      slotHeld = false;
      this.busy--;
      const ms = Date.now() - task.startedAt;
      this.handlerMs = this.handlerMs < 0 ? ms : this.handlerMs + (ms - this.handlerMs) / 8;
      this.slotsChanged();
    };
    void (async () => {
      try {
        const finish = await runTask({
          runtime: this.runtime,
          client: this.client,
          worker: this.options.name,
          definition,
          task,
          mayContinue: (this.limits?.get(message.key) ?? 1) > 0,
        });
        // The slot is free once the handler is done; writing its end overlaps the next read.
        freeSlot();
        if (finish) await this.finisher!.finish(finish);
      } catch (error) {
        this.logger.error(`task ${message.key} could not be finished: ${(error as Error).message}`);
      } finally {
        freeSlot();
        this.running.delete(message.id);
        if (this.byKey.get(message.key) === task) this.byKey.delete(message.key);
        if (this.idle()) this.becameIdle();
      }
    })();
  }

  private drainWaiters: (() => void)[] = [];

  /** A `cancel(key)` was published: abort the task if this worker runs it. */
  private cancelled(key: string): void {
    const task = this.byKey.get(key);
    if (!task || task.cancelRequested) return;
    task.cancelRequested = true;
    task.controller.abort(new ExecutionCancelledError(`execution ${key} was cancelled`));
  }

  /** Seed automatic tasks now and every minute (a severed chain heals). */
  private seedAutomatic(): void {
    clearInterval(this.seedTimer);
    const seed = () =>
      void seedAutomaticTasks(this.runtime, this.client).catch((error: unknown) => {
        this.disrupted(error);
        this.logger.warn(`seeding automatic tasks failed: ${(error as Error).message}`);
      });
    seed();
    this.seedTimer = setInterval(seed, RESEED_INTERVAL);
    this.seedTimer.unref();
  }

  /** Keep the messages this worker runs from being redelivered. */
  private renewLeases(): void {
    clearInterval(this.leaseTimer);
    const every = this.options.redeliveryTimeout / 4;
    const renew = () => {
      const tasks = [...this.running.values()].filter((t) => !t.abandoned);
      const held = this.held.map((h) => h.entry[0]);
      if (tasks.length === 0 && held.length === 0) return;
      const { connection, keys } = this.runtime;
      const pipeline = connection.commands.pipeline();
      pipeline.call(
        'XCLAIM',
        keys.stream,
        CONSUMER_GROUP,
        this.options.name,
        0,
        ...tasks.map((t) => t.message.id),
        ...held,
        'JUSTID',
      );
      const now = Date.now();
      for (const task of tasks) pipeline.hget(keys.runs(task.message.key), 'cancel');
      for (const task of tasks) {
        if (!task.admission.includes('"conc"')) continue;
        for (const rule of JSON.parse(task.admission) as { t: string; k: string; s: number }[]) {
          if (rule.t !== 'conc') continue;
          pipeline.zadd(rule.k, 'XX', now, task.message.key);
          pipeline.pexpire(rule.k, rule.s * 4);
        }
      }
      void pipeline.exec().then(
        (replies) => {
          // A cancel announced while this worker could not hear it is found here.
          tasks.forEach((task, i) => {
            if (replies?.[i + 1]?.[1] === '1') this.cancelled(task.message.key);
          });
        },
        (error: unknown) => {
          this.disrupted(error);
          this.logger.warn(`renewing leases failed: ${(error as Error).message}`);
        },
      );
    };
    this.leaseTimer = setInterval(renew, every);
    this.leaseTimer.unref();
    // After the subscriber reconnected, look for cancels that were announced meanwhile.
    this.undoReconnect?.();
    this.undoReconnect = this.runtime.subscriptions.onReconnect(renew);
  }

  /** End a blocking read now (it returns as if it timed out). */
  private interruptRead(): void {
    if (!this.reading) {
      this.interrupted = true;
      return;
    }
    if (this.blockingId === undefined) return;
    const commands = this.runtime.connection.commands;
    if (commands.status !== 'ready') return;
    void commands.client('UNBLOCK', this.blockingId).catch(() => undefined);
  }

  /** Stop taking work; wait for running tasks up to `shutdownTimeout`, then abandon them. */
  private async stopLoops(): Promise<void> {
    if (this.mode !== 'running') return;
    this.mode = 'draining';
    // Ends still get written, but one that fails is no longer retried: redelivery takes over.
    this.finisher?.stop();
    this.stopSignal.abort();
    this.slotFreed?.();
    this.interruptRead();
    await within(this.loop, this.options.minimumCheckInterval + 1_000);
    await within(this.scheduler.stop(), 1_000);
    // Messages read ahead or being claimed still start: the drain waits for them too.
    if (!this.idle()) {
      const drained = new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      await within(drained, this.options.shutdownTimeout);
    }
    const abandoned = !this.idle();
    if (abandoned) {
      this.logger.warn(
        `shutdown deadline passed with ${this.running.size} task(s) running and ` +
          `${this.claiming + this.held.length} not started; they are left to redelivery`,
      );
      for (const task of this.running.values()) {
        task.abandoned = true;
        task.controller.abort(new Error('the worker is shutting down'));
      }
      this.running.clear();
      this.byKey.clear();
      this.busy = 0;
      this.epoch++;
      this.claiming = 0;
      this.claims = 0;
      this.held = [];
    }
    this.finisher?.stop();
    clearInterval(this.leaseTimer);
    this.undoReconnect?.();
    this.undoReconnect = undefined;
    clearInterval(this.seedTimer);
    await this.heartbeat?.stop();
    await within(this.undoCancel?.(), 1_000);
    this.undoCancel = undefined;
    if (!abandoned) await within(this.forgetConsumer(), 1_000);
    this.blocking?.disconnect();
    this.blocking = undefined;
    this.blockingId = undefined;
    this.mode = 'stopped';
  }

  /** Remove this worker's consumer from the group when nothing of it is pending. */
  private async forgetConsumer(): Promise<void> {
    const { connection, keys } = this.runtime;
    if (connection.commands.status !== 'ready') return;
    const pending = (await connection.commands.xpending(
      keys.stream,
      CONSUMER_GROUP,
      '-',
      '+',
      1,
      this.options.name,
    )) as unknown[];
    if (pending.length === 0) {
      await connection.commands.xgroup(
        'DELCONSUMER',
        keys.stream,
        CONSUMER_GROUP,
        this.options.name,
      );
    }
  }

  private async shutdown(): Promise<void> {
    if (this.closed) return;
    await this.stopLoops();
    this.closed = true;
    for (const resolve of this.finishWaiters.splice(0)) resolve();
    for (const resolve of this.closeWaiters.splice(0)) resolve();
  }
}
