import type { StreamEntry } from '../store/docket-store.js';

/** A message read from the stream and not yet claimed. */
export interface Held {
  entry: StreamEntry;
  redelivered: boolean;
}

/**
 * While handlers take less than this on average (ms), the worker reads up to one batch ahead
 * of its free slots (two batches of a batch task), so that a read is never between a batch's
 * end and the next batch's claim.
 */
export const READ_AHEAD_MS = 10;

/** The smallest claim worth splitting a batch for (see `nextClaim`). */
export const HALF_BATCH = 10;

/**
 * How much a worker reads and claims: the slots of its concurrency are taken by running
 * handlers (`busy`), by messages in claim calls (`claiming`) and by messages read and held
 * for a slot. Pure bookkeeping, no I/O: the dispatcher tells it what happened and asks it
 * what to do next.
 */
export class FlowControl {
  /** Handlers running now: what the concurrency bounds. */
  busy = 0;
  /** Messages in claim calls in flight: their slots are taken until the claim answers. */
  claiming = 0;
  /** Claim calls in flight. */
  claims = 0;
  /** Messages read ahead, waiting for a free slot (pending for this worker). */
  private held: Held[] = [];
  /** How many of `held` are redeliveries. */
  private heldRedelivered = 0;
  /** A redelivered message was taken to run alone: nothing else starts until it is done. */
  private alone = false;
  /** Average time a handler held its slot (ms), -1 before the first one ended. */
  private handlerMs = -1;
  /**
   * A read is in flight (the loop's own, or one along with a claim or with ends): no second
   * one starts, so that messages are held, claimed and started in the order the stream gave
   * them.
   */
  private readInFlight = false;
  /**
   * How many lanes the docket has (priorities in use). With more than one, the worker reads
   * no more than its free slots, so that urgent work is not stuck behind read-ahead.
   */
  lanes = 1;
  /** Batches being formed: each takes one slot from its first item on. */
  private forming = 0;
  /** How many more items the batches being formed take (read beyond the slots for them). */
  formingRoom = 0;
  /**
   * The largest batch size of this worker's tasks (0: none): how many messages a read may
   * bring for a batch (see `room`).
   */
  batchSize = 0;
  /** Batches whose handlers run now. */
  batchesRunning = 0;

  constructor(readonly concurrency: number) {}

  /** Handlers are quick (on average under READ_AHEAD_MS): read ahead, split claims. */
  readsAhead(): boolean {
    return this.handlerMs >= 0 && this.handlerMs < READ_AHEAD_MS;
  }

  /**
   * How many more messages may be read now: none while a redelivered message waits or runs
   * (it runs alone, so that a poison message cannot take innocent tasks down with it again).
   */
  room(): number {
    if (this.isAlone() || this.heldRedelivered > 0) return 0;
    const limit = this.readsAhead() && this.lanes === 1 ? 2 * this.concurrency : this.concurrency;
    const taken = this.busy + this.claiming + this.forming;
    const room = limit - taken - this.held.length + this.formingRoom;
    // A batch can fill from one read while a slot is free, and the next one fills while a
    // batch runs; not with priorities in use (then a worker reads no more than its free slots,
    // and a batch fills read by read through `formingRoom`). With quick handlers a read brings
    // two batches: one is claimed while the other runs and Redis records its ends, so neither
    // side waits for the other.
    const batchRead =
      this.batchSize > 0 &&
      this.lanes === 1 &&
      (taken < this.concurrency || this.batchesRunning > 0);
    const batches = this.readsAhead() ? 2 : 1;
    return batchRead ? Math.max(room, batches * this.batchSize - this.held.length) : room;
  }

  /**
   * Take the turn to read: how many messages may be read now, 0 when none may or another read
   * is in flight. A read that may go is in flight until `endRead`.
   */
  beginRead(): number {
    if (this.readInFlight) return 0;
    const room = this.room();
    if (room <= 0) return 0;
    this.readInFlight = true;
    return room;
  }

  /** The read of `beginRead` answered (its messages are held next). */
  endRead(): void {
    this.readInFlight = false;
  }

  hold(entries: readonly StreamEntry[], redelivered: boolean): void {
    for (const entry of entries) this.held.push({ entry, redelivered });
    if (redelivered) this.heldRedelivered += entries.length;
  }

  /** Whether a redelivered message runs alone now (cleared once everything has ended). */
  private isAlone(): boolean {
    if (this.alone && this.busy === 0 && this.claiming === 0) this.alone = false;
    return this.alone;
  }

  /** Ids of the messages held for a slot (their leases are renewed too). */
  heldIds(): string[] {
    return this.held.map((h) => h.entry[0]);
  }

  get heldCount(): number {
    return this.held.length;
  }

  /**
   * The held messages to claim now, taken off the queue; undefined when none may go. With
   * quick handlers and at least HALF_BATCH * 2 slots, one claim of at most half the slots is
   * in flight at a time, and the next leaves as soon as it answers: the handlers of one half
   * run while Redis claims the other. (Below that, a second claim call costs more than the
   * overlap gains.)
   */
  nextClaim(joins?: (held: readonly Held[]) => number): Held[] | undefined {
    if (this.held.length === 0 || this.isAlone()) return undefined;
    if (this.held[0].redelivered) {
      // a redelivery waits until nothing else runs here, then runs alone
      if (this.busy > 0 || this.claiming > 0 || this.forming > 0) return undefined;
      this.alone = true;
      this.heldRedelivered--;
      return this.held.splice(0, 1);
    }
    // the items of a batch being formed need no slot of their own: they go in together
    const joining = joins?.(this.held) ?? 0;
    if (joining > 0) return this.held.splice(0, joining);
    const halves = this.concurrency >= 2 * HALF_BATCH && this.readsAhead();
    if (halves && this.claims > 0) return undefined;
    const free = this.concurrency - this.busy - this.claiming - this.forming;
    if (free <= 0) return undefined;
    const most = halves ? Math.ceil(this.concurrency / 2) : this.concurrency;
    let count = Math.min(free, most);
    if (this.heldRedelivered > 0) {
      // the messages in front of the first redelivery go as usual
      count = Math.min(
        count,
        this.held.findIndex((h) => h.redelivered),
      );
    }
    return this.held.splice(0, count);
  }

  /** A claim of `count` messages left. */
  claimSent(count: number): void {
    this.claiming += count;
    this.claims++;
  }

  /** A claim answered; its messages keep their slots until `claimSettled`. */
  claimAnswered(): void {
    this.claims--;
  }

  /** The messages of an answered (or failed) claim no longer hold claim slots. */
  claimSettled(count: number): void {
    this.claiming -= count;
  }

  /** A batch started forming: it takes a slot. */
  batchOpened(): void {
    this.forming++;
  }

  /** A batch is formed: its slot is now the claim's (`claimSent(1)`). */
  batchClosed(): void {
    this.forming--;
  }

  /** A handler started. */
  started(): void {
    this.busy++;
  }

  /** A handler that held its slot for `ms` ended. */
  ended(ms: number): void {
    this.busy--;
    this.handlerMs = this.handlerMs < 0 ? ms : this.handlerMs + (ms - this.handlerMs) / 8;
  }

  /** Nothing is being claimed or formed and nothing waits for a slot. */
  settled(): boolean {
    return this.claiming === 0 && this.forming === 0 && this.held.length === 0;
  }

  /** Forget everything (shutdown gave up on the tasks: redelivery takes them). */
  reset(): void {
    this.busy = 0;
    this.claiming = 0;
    this.claims = 0;
    this.forming = 0;
    this.formingRoom = 0;
    this.batchesRunning = 0;
    this.held = [];
    this.heldRedelivered = 0;
    this.alone = false;
    this.readInFlight = false;
  }
}
