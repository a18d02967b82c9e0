import { Logger } from '@nestjs/common';
import { admissionFor } from '../behaviours/plan.js';
import type { StrikeList } from '../behaviours/strike-list.js';
import { ExecutionCancelledError } from '../errors/execution-cancelled.error.js';
import { argumentCountProblem } from '../explorer/arguments.js';
import type { TaskDefinition } from '../explorer/task-definition.js';
import type { TaskRegistry } from '../explorer/task-registry.js';
import type { DocketMetrics, TaskLabels } from '../observability/docket-metrics.js';
import type { AdmissionRule } from '../store/admission.js';
import type { DocketStore, StartedTask, StreamEntry, TaskEnd } from '../store/docket-store.js';
import type { Finisher } from './finisher.js';
import { FlowControl, type Held } from './flow-control.js';
import {
  decodeMessage,
  endOf,
  isBadMessage,
  type BadMessage,
  type TaskMessage,
} from './message.js';
import { RunningTask, RunningTasks } from './running-tasks.js';
import { BatchRunner } from './batch-runner.js';
import { LocalEvents } from './local-events.js';
import type { TaskRunner } from './task-runner.js';

/** What the dispatcher needs from the worker. */
export interface DispatcherEnv {
  worker: string;
  concurrency: number;
  redeliveryTimeout: number;
  maxRedeliveries: number;
  /** The task that runs messages naming a task this worker does not know (none: dead letter). */
  fallbackTask?: string;
  executionTtl: number;
  deadLetterTtl: number;
  store: Pick<DocketStore, 'claim'>;
  registry: TaskRegistry;
  strikes: StrikeList;
  metrics: DocketMetrics;
  runner: TaskRunner;
  finisher: Finisher;
  /** `runAtMost` limits: how many more runs each key may start (undefined: no limits). */
  limits(): Map<string, number> | undefined;
  /** A Redis error met by a claim. */
  disrupted(error: unknown): void;
  /** Nothing runs, is claimed or waits any more. */
  onIdle(): void;
  /** Room for more messages (a slot freed or a claim answered). */
  onRoom(): void;
  /** Messages that arrived after the tasks were handed back: hand them back too. */
  handBack(ids: string[]): void;
  /** A claim read the stream along (a poll, as the delivery loop's read). */
  polled(): void;
  /** The delivery loop wants the read turn (it had none of its own for a while). */
  loopWantsTurn(): boolean;
}

interface Claimable {
  message: TaskMessage;
  /** The task that runs it: its own, or the fallback task. */
  definition: TaskDefinition;
  admission: readonly AdmissionRule[];
}

/** A batch being formed: its items passed their checks and wait, unclaimed, to be claimed. */
interface Forming {
  definition: TaskDefinition;
  items: Claimable[];
  timer?: NodeJS.Timeout;
}

/** The task field of a stream entry (undefined when it has none). */
function taskOf([, fields]: StreamEntry): string | undefined {
  if (!Array.isArray(fields)) return undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'task') return fields[i + 1];
  return undefined;
}

/**
 * The end of a message that is not run (struck, or over its `runAtMost` limit): it carries the
 * admission rules so that a reserved slot is given back. Built only for a message skipped.
 */
function skipped(message: TaskMessage, admission: readonly AdmissionRule[]): { end: TaskEnd } {
  return { end: endOf(message, 'cancelled', admission) };
}

/**
 * Turns delivered messages into running tasks: checks each (decodable, a known task, its
 * arguments, strikes, `runAtMost` limits), claims the ones that pass in one call, starts the
 * handlers the claim lets run, and hands every end to the finisher; the messages it reads
 * along come back here. `FlowControl` decides how much is read and claimed.
 */
export class Dispatcher {
  private readonly logger = new Logger('DocketWorker');
  readonly flow: FlowControl;
  readonly running = new RunningTasks();
  /** Bumped when the tasks are abandoned: a late claim answer is then ignored. */
  private epoch = 0;
  private pumpScheduled = false;
  /** False once the worker stopped for good: nothing more is claimed. */
  private open = true;
  /** False while draining: messages are no longer read along. */
  private reading = true;
  /** Ends of messages that never ran (dead letters, skips) being written. */
  private ending = 0;
  /** What this worker tells its application's `@OnDocketEvent` methods. */
  private readonly events: LocalEvents;
  /** Batches being formed, by the name of their task (see `gather`). */
  private readonly forming = new Map<string, Forming>();
  private readonly batches: BatchRunner;
  /**
   * How many of the held messages, from the head, join the batch being formed for the head's
   * task: consecutive messages of that task, not redelivered, up to the batch's room.
   */
  private readonly joins = (held: readonly Held[]): number => {
    const name = taskOf(held[0].entry);
    const forming = name === undefined ? undefined : this.forming.get(name);
    const room = forming ? forming.definition.plan.batch!.size - forming.items.length : 0;
    if (room <= 0) return 0;
    // the head itself is never a redelivery here (FlowControl runs those alone first)
    let count = 1;
    while (
      count < room &&
      count < held.length &&
      !held[count].redelivered &&
      taskOf(held[count].entry) === name
    ) {
      count++;
    }
    return count;
  };

  constructor(private readonly env: DispatcherEnv) {
    this.flow = new FlowControl(env.concurrency);
    this.events = new LocalEvents(env.registry, env.worker, this.logger);
    this.batches = new BatchRunner(env.runner, env.metrics, env.worker);
    this.flow.batchSize = Math.max(
      0,
      ...env.registry.names.map((name) => env.registry.get(name)?.plan.batch?.size ?? 0),
    );
  }

  /**
   * Take the turn to read: how many messages may be read now (0 while draining, or while
   * another read is in flight). A read that may go must end with `endRead`.
   */
  beginRead(): number {
    return this.reading ? this.flow.beginRead() : 0;
  }

  /**
   * Take the turn to read along with a claim or with ends: as `beginRead`, but none while the
   * delivery loop wants the turn (see `DeliveryLoop.wantsTurn`).
   */
  beginReadAlong(): number {
    return this.env.loopWantsTurn() ? 0 : this.beginRead();
  }

  /**
   * The read of `beginRead` answered with `entries`: hold them, and let the next read go.
   * `lanes`: how many lanes the docket has, when the read knows.
   */
  endRead(entries: readonly StreamEntry[], redelivered = false, lanes?: number): void {
    this.flow.endRead();
    if (lanes !== undefined) this.flow.lanes = lanes;
    this.hold(entries, redelivered);
    // a loop that waited for this read's turn looks again
    this.env.onRoom();
  }

  /** Messages read from the stream (or redelivered), to claim when their slots free. */
  private hold(entries: readonly StreamEntry[], redelivered: boolean): void {
    if (entries.length === 0) return;
    if (!this.open) {
      // read along after the tasks were handed back: hand these back too
      this.env.handBack(entries.map(([id]) => id));
      return;
    }
    this.flow.hold(entries, redelivered);
    this.pump();
  }

  /** Nothing runs, nothing is being claimed or ended, and nothing waits for a slot. */
  idle(): boolean {
    return (
      this.running.size === 0 && this.ending === 0 && this.forming.size === 0 && this.flow.settled()
    );
  }

  /** Ids of the messages this worker holds (running or read ahead): their leases. */
  leasedIds(): string[] {
    const forming = [...this.forming.values()].flatMap((f) => f.items.map((i) => i.message.id));
    return [
      ...this.running.held().map((task) => task.message.id),
      ...this.flow.heldIds(),
      ...forming,
    ];
  }

  /** A `cancel(key)` reached this worker: abort the task if it runs here. */
  cancel(key: string): void {
    this.running.cancel(key, new ExecutionCancelledError(`execution ${key} was cancelled`));
  }

  /** Stop reading along; what is held and claimed still starts (a drain waits for it). */
  drain(): void {
    this.reading = false;
    // a batch being formed starts now with what it has
    for (const name of [...this.forming.keys()]) this.closeBatch(name);
  }

  /**
   * Give up on every task (the drain deadline passed): abort the running ones; returns what
   * this worker still holds (every message id, and the tasks it started), or undefined when
   * nothing was left.
   */
  abandon(): { held: string[]; started: StartedTask[] } | undefined {
    this.open = false;
    if (this.idle()) return undefined;
    const held = this.leasedIds();
    const started = this.running.held().map(({ message: m }) => ({
      key: m.key,
      generation: m.generation,
      id: m.id,
    }));
    let waiting = this.flow.claiming + this.flow.heldCount;
    for (const { items, timer } of this.forming.values()) {
      waiting += items.length;
      clearTimeout(timer);
    }
    this.forming.clear();
    this.logger.warn(
      `shutdown deadline passed with ${started.length} task(s) running and ${waiting} not started; they are handed back to the docket`,
    );
    this.running.abandonAll(new Error('the worker is shutting down'));
    this.flow.reset();
    this.epoch++;
    return { held, started };
  }

  /** Claim held messages into the free slots (see `FlowControl.nextClaim`). */
  private pump(): void {
    if (!this.open) return;
    for (
      let batch = this.flow.nextClaim(this.joins);
      batch;
      batch = this.flow.nextClaim(this.joins)
    ) {
      this.dispatch(batch);
    }
    // A batch starts with what it has when it waits for nothing (lingerMs 0, or a drain), or
    // when a held message that is not its item waits for a slot (nothing more can join it).
    const blocked = this.flow.heldCount > 0;
    for (const [name, { definition }] of this.forming) {
      if (blocked || definition.plan.batch!.lingerMs === 0 || !this.reading) this.closeBatch(name);
    }
  }

  /**
   * Pump and tell the loop once the current turn of the event loop has settled, so that the
   * slots of handlers ending together are filled by one claim and counted by one read.
   */
  private slotsChanged(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    process.nextTick(() => {
      this.pumpScheduled = false;
      this.pump();
      this.env.onRoom();
      if (this.idle()) this.env.onIdle();
    });
  }

  private dispatch(batch: Held[]): void {
    const claimable: Claimable[] = [];
    for (const { entry, redelivered } of batch) {
      const message = decodeMessage(entry, redelivered);
      const checked = this.check(message);
      if ('end' in checked) void this.endUnrun(checked.end);
      else if (checked.admission && !isBadMessage(message)) {
        const item = { message, definition: checked.definition, admission: checked.admission };
        // a redelivered item of a batch runs alone, as a batch of one
        if (item.definition.plan.batch && !message.redelivered) this.gather(item);
        else claimable.push(item);
      }
    }
    if (claimable.length === 0) return;
    this.flow.claimSent(claimable.length);
    void this.claim(claimable, this.epoch, false);
  }

  /**
   * Add an item that passed its checks to the batch of its task being formed (opening one,
   * which takes a slot); a full batch is claimed at once, another when its `lingerMs` is over.
   */
  private gather(item: Claimable): void {
    const { definition } = item;
    const { size, lingerMs } = definition.plan.batch!;
    let forming = this.forming.get(definition.name);
    if (!forming) {
      forming = { definition, items: [] };
      this.forming.set(definition.name, forming);
      this.flow.batchOpened();
      if (lingerMs > 0 && this.reading) {
        forming.timer = setTimeout(() => {
          this.closeBatch(definition.name);
          this.slotsChanged();
        }, lingerMs);
      }
    }
    forming.items.push(item);
    if (forming.items.length >= size) this.closeBatch(definition.name);
    else this.formingChanged();
  }

  /** Claim the items of the batch being formed for task `name`, in one claim with one slot. */
  private closeBatch(name: string): void {
    const forming = this.forming.get(name);
    if (!forming) return;
    this.forming.delete(name);
    clearTimeout(forming.timer);
    this.formingChanged();
    this.flow.batchClosed();
    this.flow.claimSent(1);
    void this.claim(forming.items, this.epoch, true);
  }

  private formingChanged(): void {
    let room = 0;
    for (const { definition, items } of this.forming.values()) {
      room += definition.plan.batch!.size - items.length;
    }
    this.flow.formingRoom = room;
  }

  /**
   * What to do with one message before the claim: an end to write at once (dead letter,
   * struck, over its `runAtMost` limit), nothing (it already runs here), or the task that
   * runs it and its admission.
   */
  private check(
    message: TaskMessage | BadMessage,
  ):
    | { end: TaskEnd }
    | { admission?: undefined }
    | { definition: TaskDefinition; admission: readonly AdmissionRule[] } {
    if (isBadMessage(message)) {
      const end = this.deadLetter(message, message.reason);
      end.outcome = 'rejected';
      return { end };
    }
    const definition = this.definitionOf(message.taskName);
    if (!definition) {
      const known = this.env.registry.names.sort().join(', ');
      return {
        end: this.deadLetter(
          message,
          `UnknownTaskError: this worker has no task "${message.taskName}" (it has: ${known})`,
        ),
      };
    }
    if (this.running.has(message.id)) return {}; // its lease lapsed while it runs here
    // A fallback takes whatever arguments came; its parameters are not the unknown task's.
    const own = definition.name === message.taskName;
    const wrongArguments = own && argumentCountProblem(definition, message.args.length);
    if (wrongArguments) return { end: this.deadLetter(message, wrongArguments) };
    const admission = admissionFor(definition.plan, message.args, this.env.redeliveryTimeout);
    const parameters = own ? definition.parameters : undefined;
    if (this.env.strikes.matches(message.taskName, parameters, message.args)) {
      this.logger.log(`🗙 ${message.taskName}(${message.key}) struck`);
      this.env.metrics.count('stricken', { task: message.taskName, worker: this.env.worker });
      return skipped(message, admission);
    }
    const limits = this.env.limits();
    const limit = limits?.get(message.key);
    if (limit !== undefined) {
      if (limit <= 0) return skipped(message, admission);
      limits!.set(message.key, limit - 1);
    }
    return { definition, admission };
  }

  /** The task that runs a message naming `taskName`: its own, else the fallback task, if any. */
  private definitionOf(taskName: string): TaskDefinition | undefined {
    const { registry, fallbackTask } = this.env;
    return registry.get(taskName) ?? (fallbackTask ? registry.get(fallbackTask) : undefined);
  }

  /** Write the end of a message that never ran; the drain waits for it like for a task. */
  private async endUnrun(end: TaskEnd): Promise<void> {
    this.ending++;
    try {
      const status = await this.env.finisher.finish(end);
      // a dead-lettered or rejected message is an event (failed, dead), as the finish script
      // publishes it; a skip is not
      if (end.outcome !== 'cancelled' && status !== undefined) this.events.ended(end, status);
    } finally {
      this.ending--;
      if (this.idle()) this.env.onIdle();
    }
  }

  private deadLetter(message: TaskMessage | BadMessage, reason: string): TaskEnd {
    this.logger.error(`message ${message.id} (key ${message.key || '?'}) dead-lettered: ${reason}`);
    const end = endOf(message, 'dead', []);
    end.error = reason;
    return end;
  }

  /** Claim messages; `batch`: they are the items of one batch, which take one slot. */
  private async claim(claimable: Claimable[], epoch: number, batch: boolean): Promise<void> {
    const slots = batch ? 1 : claimable.length;
    const now = Date.now();
    // the claim reads the next messages along when the read turn is free (see FlowControl)
    const readAlong = this.beginReadAlong();
    let statuses: string[];
    let read: StreamEntry[];
    try {
      ({ statuses, read } = await this.env.store.claim(
        this.env.worker,
        claimable.map(({ message: m, admission }) => ({
          key: m.key,
          generation: m.generation,
          id: m.id,
          admission,
        })),
        {
          now,
          executionTtl: this.env.executionTtl,
          deadLetterTtl: this.env.deadLetterTtl,
          maxStarts: this.env.maxRedeliveries + 1,
          readAlong,
        },
      ));
    } catch (error) {
      if (readAlong > 0) this.endRead([]);
      // The messages stay pending for this worker: redelivery takes them over.
      if (epoch === this.epoch) {
        this.flow.claimAnswered();
        this.flow.claimSettled(slots);
        this.slotsChanged();
      }
      if (!this.open) return;
      this.env.disrupted(error);
      this.logger.warn(`claiming ${claimable.length} task(s): ${(error as Error)?.message}`);
      return;
    }
    // a read along is a poll of the stream, as the delivery loop's own read is
    if (readAlong > 0) this.env.polled();
    try {
      this.claimed(claimable, statuses, { epoch, slots, batch, now });
    } finally {
      // held after the messages of this claim, which came first in the stream (and handed
      // back when the tasks were handed back meanwhile)
      if (readAlong > 0) this.endRead(read);
    }
  }

  /** Start what a claim answered 'run' for, and count the rest. */
  private claimed(
    claimable: Claimable[],
    statuses: string[],
    { epoch, slots, batch, now }: { epoch: number; slots: number; batch: boolean; now: number },
  ): void {
    // Abandoned meanwhile: the claimed messages are left to redelivery.
    if (epoch !== this.epoch) return;
    this.flow.claimAnswered();
    // The next claim leaves before these handlers run (their slots still count as claimed).
    this.pump();
    this.flow.claimSettled(slots);
    this.slotsChanged();
    const { metrics, worker } = this.env;
    const items: RunningTask[] = [];
    // one labels object per run of the same task in this claim (most claims are of one task)
    let last: TaskLabels | undefined;
    claimable.forEach(({ message, definition, admission }, i) => {
      const labels =
        last?.task === message.taskName ? last : (last = { task: message.taskName, worker });
      switch (statuses[i]) {
        case 'run':
          metrics.count('started', labels);
          this.events.started(message, now);
          if (message.redelivered) metrics.count('redelivered', labels);
          metrics.punctuality(labels, (now - message.when) / 1_000);
          if (batch) items.push(new RunningTask(message, definition, now, admission));
          else if (definition.plan.batch) {
            this.executeBatch(definition, [new RunningTask(message, definition, now, admission)]);
          } else this.execute(new RunningTask(message, definition, now, admission));
          return;
        case 'superseded':
          metrics.count('superseded', labels);
          break;
        case 'cancelled':
          metrics.count('cancelled', labels);
          break;
        case 'poisoned':
          metrics.count('quarantined', labels);
          this.logger.error(
            `${message.taskName}(${message.key}) dead-lettered: PoisonMessageError: its attempt started ${this.env.maxRedeliveries + 1} times and its worker never finished it`,
          );
          return;
        case 'error':
          this.logger.error(
            `${message.taskName}(${message.key}) dead-lettered: a record of it cannot be read`,
          );
          return;
      }
      this.logger.debug?.(`${message.taskName}(${message.key}) not started: ${statuses[i]}`);
    });
    if (items.length > 0) this.executeBatch(items[0].definition, items);
  }

  /** Run the items of one batch in one call of its handler, in one slot. */
  private executeBatch(definition: TaskDefinition, tasks: RunningTask[]): void {
    for (const task of tasks) this.running.add(task);
    this.flow.started();
    this.flow.batchesRunning++;
    const startedAt = tasks[0].startedAt;
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld || tasks[0].abandoned) return;
      slotHeld = false;
      this.flow.batchesRunning--;
      this.flow.ended(Date.now() - startedAt);
      this.slotsChanged();
    };
    void (async () => {
      try {
        const ends = await this.batches.run(definition, tasks);
        freeSlot();
        // every end is written (or failed) before the items let go of their leases
        // (as a single task's end; the events isolate their listeners)
        const ending = tasks.filter((_, i) => ends[i]);
        const written = ends.filter((end): end is TaskEnd => end !== null);
        for (const task of ending) this.events.ending(task.message.key);
        const statuses = await this.env.finisher.finishAll(written);
        ending.forEach((task, i) => {
          this.events.ended(written[i], statuses[i], task.startedAt);
          this.env.runner.counted(task, written[i], statuses[i]);
        });
      } catch (error) {
        this.logger.error(
          `a batch of ${tasks.length} ${definition.name} task(s) could not be finished: ${(error as Error).message}`,
        );
      } finally {
        freeSlot();
        for (const task of tasks) this.running.remove(task);
        if (this.idle()) this.env.onIdle();
      }
    })();
  }

  private execute(task: RunningTask): void {
    const { message, definition } = task;
    this.running.add(task);
    this.flow.started();
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld || task.abandoned) return;
      slotHeld = false;
      this.flow.ended(Date.now() - task.startedAt);
      this.slotsChanged();
    };
    void (async () => {
      try {
        const mayContinue = (this.env.limits()?.get(message.key) ?? 1) > 0;
        const end = await this.env.runner.run(definition, task, mayContinue);
        // The slot is free once the handler is done; writing its end overlaps the next read.
        freeSlot();
        if (end) {
          // a next attempt of the key may start before this end is told: its start waits
          this.events.ending(message.key);
          // what the finisher reads along with it comes back through `endRead`
          const status = await this.env.finisher.finish(end);
          this.events.ended(end, status, task.startedAt);
          this.env.runner.counted(task, end, status);
        }
      } catch (error) {
        this.logger.error(`task ${message.key} could not be finished: ${(error as Error).message}`);
      } finally {
        freeSlot();
        this.running.remove(task);
        if (this.idle()) this.env.onIdle();
      }
    })();
  }
}
