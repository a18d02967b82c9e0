import { Logger } from '@nestjs/common';
import { CONSUMER_GROUP } from '../docket.tokens.js';
import type { DocketRuntime } from '../docket.runtime.js';
import { runScript } from '../store/scripts.js';
import type { StreamEntry } from './message.js';

/** How one delivered message ended (see finish-2.lua). */
export interface Finish {
  key: string;
  generation: string;
  id: string;
  outcome: 'completed' | 'failed' | 'cancelled' | 'retry' | 'dead';
  result?: string;
  error?: string;
  retryWhen?: number;
  attempt: number;
  taskName: string;
  rawArgs: string;
  /** The admission rules the message ran under (its concurrency slots are given back). */
  admission?: string;
  /** A perpetual task's successor: when, and its encoded args ('' = the same). */
  nextWhen?: number;
  nextArgs?: string;
  /** What the handler threw (not written to Redis; for spans and logs). */
  thrown?: unknown;
}

const BATCH = 100;

/** A worker that reads its next messages in the call that records the ends of its last ones. */
export interface ReadAlong {
  consumer: string;
  /** How many new messages the worker has room for now (0: none). */
  room(): number;
  /** The messages read along with a batch of ends. */
  take(entries: StreamEntry[]): void;
}

/**
 * Writes the ends of executions, batching those that end in the same turn of the event loop
 * into one script call. A write that fails (Redis away) is tried again until it lands or the
 * worker stops, so that a finished task is not run again needlessly.
 */
export class Finisher {
  private readonly logger = new Logger('Docket');
  private queue: { finish: Finish; resolve: () => void }[] = [];
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly runtime: DocketRuntime,
    private readonly onDisruption: (error: unknown) => void,
    private readonly retryDelay: () => number,
    private readonly readAlong?: ReadAlong,
  ) {}

  /** Resolves once the end is written (or the worker stopped trying). */
  finish(finish: Finish): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push({ finish, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  stop(): void {
    this.stopped = true;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue.splice(0, BATCH);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    for (;;) {
      try {
        await this.write(batch.map((b) => b.finish));
        break;
      } catch (error) {
        this.onDisruption(error);
        if (this.stopped) {
          this.logger.warn(
            `could not record the end of ${batch.length} task(s) (${(error as Error).message}); they will be redelivered`,
          );
          break;
        }
        await new Promise((r) => setTimeout(r, this.retryDelay()));
      }
    }
    for (const b of batch) b.resolve();
  }

  private async write(batch: Finish[]): Promise<void> {
    const { connection, keys, options } = this.runtime;
    await connection.ready();
    const args: (string | number)[] = [
      keys.prefix,
      CONSUMER_GROUP,
      Date.now(),
      options.executionTtl,
      options.deadLetterTtl,
    ];
    const want = this.readAlong && !this.stopped ? Math.max(0, this.readAlong.room()) : 0;
    args.push(want > 0 ? this.readAlong!.consumer : '', want);
    for (const f of batch) {
      args.push(
        f.key,
        f.generation,
        f.id,
        f.outcome,
        f.result ?? '',
        f.error ?? '',
        f.retryWhen ?? 0,
        f.attempt,
        f.taskName,
        f.rawArgs,
        f.admission ?? '',
        f.nextWhen ?? '',
        f.nextArgs ?? '',
      );
    }
    const [, read] = await runScript<[string[], StreamEntry[]]>(
      connection.commands,
      'finish',
      [keys.stream, keys.dead],
      args,
    );
    if (read.length > 0) this.readAlong!.take(read);
  }
}
