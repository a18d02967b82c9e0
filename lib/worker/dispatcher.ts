import { Logger } from '@nestjs/common';
import { admissionFor } from '../behaviours/plan.js';
import type { StrikeList } from '../behaviours/strike-list.js';
import { ExecutionCancelledError } from '../errors/execution-cancelled.error.js';
import { argumentCountProblem } from '../explorer/arguments.js';
import type { TaskDefinition } from '../explorer/task-definition.js';
import type { TaskRegistry } from '../explorer/task-registry.js';
import type { DocketMetrics } from '../observability/docket-metrics.js';
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
}

interface Claimable {
  message: TaskMessage;
  /** The task that runs it: its own, or the fallback task. */
  definition: TaskDefinition;
  admission: readonly AdmissionRule[];
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

  constructor(private readonly env: DispatcherEnv) {
    this.flow = new FlowControl(env.concurrency);
    this.events = new LocalEvents(env.registry, env.worker, this.logger);
  }

  /**
   * Take the turn to read: how many messages may be read now (0 while draining, or while
   * another read is in flight). A read that may go must end with `endRead`.
   */
  beginRead(): number {
    return this.reading ? this.flow.beginRead() : 0;
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
    return this.running.size === 0 && this.ending === 0 && this.flow.settled();
  }

  /** Ids of the messages this worker holds (running or read ahead): their leases. */
  leasedIds(): string[] {
    return [...this.running.held().map((task) => task.message.id), ...this.flow.heldIds()];
  }

  /** A `cancel(key)` reached this worker: abort the task if it runs here. */
  cancel(key: string): void {
    this.running.cancel(key, new ExecutionCancelledError(`execution ${key} was cancelled`));
  }

  /** Stop reading along; what is held and claimed still starts (a drain waits for it). */
  drain(): void {
    this.reading = false;
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
    const waiting = this.flow.claiming + this.flow.heldCount;
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
    for (let batch = this.flow.nextClaim(); batch; batch = this.flow.nextClaim()) {
      this.dispatch(batch);
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
        claimable.push({ message, definition: checked.definition, admission: checked.admission });
      }
    }
    if (claimable.length === 0) return;
    this.flow.claimSent(claimable.length);
    void this.claim(claimable, this.epoch);
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
      return { end: { ...this.deadLetter(message, message.reason), outcome: 'rejected' } };
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
    // Not run: the end carries the admission rules so that a reserved slot is given back.
    const skip = { end: { ...endOf(message), outcome: 'cancelled' as const, admission } };
    const parameters = own ? definition.parameters : undefined;
    if (this.env.strikes.matches(message.taskName, parameters, message.args)) {
      this.logger.log(`🗙 ${message.taskName}(${message.key}) struck`);
      this.env.metrics.count('stricken', { task: message.taskName, worker: this.env.worker });
      return skip;
    }
    const limits = this.env.limits();
    const limit = limits?.get(message.key);
    if (limit !== undefined) {
      if (limit <= 0) return skip;
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
    return { ...endOf(message), outcome: 'dead', error: reason, admission: [] };
  }

  private async claim(claimable: Claimable[], epoch: number): Promise<void> {
    const now = Date.now();
    let statuses: string[];
    try {
      statuses = await this.env.store.claim(
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
        },
      );
    } catch (error) {
      // The messages stay pending for this worker: redelivery takes them over.
      if (epoch === this.epoch) {
        this.flow.claimAnswered();
        this.flow.claimSettled(claimable.length);
        this.slotsChanged();
      }
      if (!this.open) return;
      this.env.disrupted(error);
      this.logger.warn(`claiming ${claimable.length} task(s): ${(error as Error)?.message}`);
      return;
    }
    // Abandoned meanwhile: the claimed messages are left to redelivery.
    if (epoch !== this.epoch) return;
    this.flow.claimAnswered();
    // The next claim leaves before these handlers run (their slots still count as claimed).
    this.pump();
    this.flow.claimSettled(claimable.length);
    this.slotsChanged();
    const { metrics, worker } = this.env;
    claimable.forEach(({ message, definition, admission }, i) => {
      const labels = { task: message.taskName, worker };
      switch (statuses[i]) {
        case 'run':
          metrics.count('started', labels);
          this.events.started(message, now);
          if (message.redelivered) metrics.count('redelivered', labels);
          metrics.punctuality(labels, (now - message.when) / 1_000);
          this.execute(new RunningTask(message, definition, now, admission));
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
