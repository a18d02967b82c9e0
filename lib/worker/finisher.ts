import { Logger } from '@nestjs/common';
import type {
  DocketStore,
  EndStatus,
  FinishResult,
  StreamEntry,
  TaskEnd,
} from '../store/docket-store.js';
import { sleep } from '../util/time.js';

/** Most ends written in one call. */
const BATCH = 100;

/** What the finisher needs from the worker. */
export interface FinisherEnv {
  store: Pick<DocketStore, 'finish'>;
  consumer: string;
  executionTtl: number;
  deadLetterTtl: number;
  reconnectionDelay: number;
  /**
   * Take the worker's turn to read: how many new messages to read along with the ends (0:
   * none). A turn taken ends with `endRead`, which holds what was read.
   */
  beginRead(): number;
  endRead(entries: StreamEntry[]): void;
  /** A Redis error met while writing (the write is tried again). */
  disrupted(error: unknown): void;
  /** A write read the stream along (a poll, as the delivery loop's read). */
  polled(): void;
  /** A write ended (whether it read along or not). */
  flushed(): void;
}

/** Ends handed over together (a batch's items): one promise for all their statuses. */
interface Group {
  statuses: (EndStatus | undefined)[];
  left: number;
  resolve: (statuses: (EndStatus | undefined)[]) => void;
}

/** An end waiting for its write: told alone, or as item `index` of a group. */
type Queued =
  | { end: TaskEnd; resolve: (status: EndStatus | undefined) => void; group?: undefined }
  | { end: TaskEnd; group: Group; index: number };

/**
 * Writes the ends of executions, batching those that end in the same turn of the event loop
 * into one call, which also reads the worker's next messages (for the room it has then). A
 * write that fails (Redis away) is tried again until it lands or the worker stops retrying,
 * so that a finished task is not run again needlessly.
 */
export class Finisher {
  private readonly logger = new Logger('Docket');
  private queue: Queued[] = [];
  private scheduled = false;
  private retrying = true;

  constructor(private readonly env: FinisherEnv) {}

  /**
   * Resolves with the status of the end once it is written, or with undefined when it could
   * not be (the worker stopped retrying).
   */
  finish(end: TaskEnd): Promise<EndStatus | undefined> {
    return new Promise((resolve) => {
      this.queue.push({ end, resolve });
      this.schedule();
    });
  }

  /** `finish` for many ends at once (a batch's items): their statuses, in order. */
  finishAll(ends: readonly TaskEnd[]): Promise<(EndStatus | undefined)[]> {
    if (ends.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const group: Group = { statuses: new Array(ends.length), left: ends.length, resolve };
      ends.forEach((end, index) => this.queue.push({ end, group, index }));
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /**
   * Ends wait for the next write, which reads the worker's next messages along: the delivery
   * loop leaves that read to it (one call instead of two).
   */
  get pending(): boolean {
    return this.scheduled;
  }

  /** Ends still get written, but one that fails is no longer retried (redelivery takes over). */
  stopRetrying(): void {
    this.retrying = false;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue.splice(0, BATCH);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    let result: FinishResult = { statuses: [], read: [] };
    // a write whose reply was lost may have read along already: its retries read nothing
    let count = this.retrying ? this.env.beginRead() : 0;
    let reading = count > 0;
    for (;;) {
      try {
        result = await this.write(
          batch.map((b) => b.end),
          count,
        );
        break;
      } catch (error) {
        if (reading) {
          reading = false;
          this.env.endRead([]);
        }
        count = 0;
        this.env.disrupted(error);
        if (!this.retrying) {
          this.logger.warn(
            `could not record the end of ${batch.length} task(s) (${(error as Error).message}); they will be redelivered`,
          );
          break;
        }
        await sleep(this.env.reconnectionDelay);
      }
    }
    try {
      if (reading) {
        // (a write that failed gave its turn back with nothing read)
        this.env.polled();
        this.env.endRead(result.read);
      }
    } finally {
      // whatever happened to the messages read, the ends are written: their tasks go on
      batch.forEach((b, i) => {
        const status = result.statuses[i];
        if (!b.group) b.resolve(status);
        else {
          b.group.statuses[b.index] = status;
          if (--b.group.left === 0) b.group.resolve(b.group.statuses);
        }
      });
      this.env.flushed();
    }
  }

  private write(ends: TaskEnd[], count: number): Promise<FinishResult> {
    return this.env.store.finish(ends, {
      now: Date.now(),
      executionTtl: this.env.executionTtl,
      deadLetterTtl: this.env.deadLetterTtl,
      readAlong: count > 0 ? { consumer: this.env.consumer, count } : undefined,
    });
  }
}
