/** What one task carries: its number, and the stamps the latency scenarios measure from. */
export interface Payload {
  i: number;
  /** When the producer called add (epoch ms, sub-millisecond; see `nowMs`). */
  sent?: number;
  /** When the task is due (epoch ms). */
  due?: number;
}

export type Lib = 'docket' | 'bullmq';

/** How a producer (in the orchestrator) or a worker (in a child process) is set up. */
export interface SideOptions {
  url: string;
  /** Docket name or BullMQ queue name. */
  queue: string;
  /**
   * Keep nothing of a finished task: docket `executionTtl: 0`, BullMQ `removeOnComplete:
   * true`. Otherwise each library's default (docket 15 min, BullMQ keeps every completed job).
   */
  fireAndForget: boolean;
  /**
   * docket: the no-op task takes batches of this many (`batch: { size }`); BullMQ has no batch
   * handlers (a paid feature), so its worker takes one job at a time as usual.
   */
  batch?: number;
  /** docket: keep a history of this many finished executions (as a mounted dashboard does). */
  history?: number;
}

/** The producing half of a library, as the scenarios use it. */
export interface Producer {
  /** Enqueue one task, due now or at `due` (epoch ms). */
  /** `key`: the task key (docket) or job id (BullMQ) instead of the library's own. */
  add(payload: Payload, due?: number, key?: string): Promise<void>;
  /** Enqueue many at once; null when the library has no bulk add. */
  readonly addBulk: ((payloads: Payload[]) => Promise<void>) | null;
  /** Tasks not finished yet (waiting, due or running), as the library keeps them in Redis. */
  unfinished(): Promise<number>;
  close(): Promise<void>;
}

/** The working half, one per worker process. */
export interface Consumer {
  /** Begin taking tasks. */
  start(): void;
  /** Stop taking tasks, drain, close connections. */
  stop(): Promise<void>;
}

export interface Side {
  readonly lib: Lib;
  readonly version: string;
  producer(options: SideOptions): Promise<Producer>;
  consumer(
    options: SideOptions,
    concurrency: number,
    onTask: (payload: Payload) => void,
  ): Promise<Consumer>;
}

/** Wall-clock time with sub-millisecond resolution, comparable between processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
