import type { WorkerInfo } from '../interfaces/snapshot.interface.js';

/**
 * A live worker, with what it tells about itself when it registers. Each of those fields is
 * null when the worker did not tell it (a worker of an older version tells nothing).
 */
export interface LiveWorker extends WorkerInfo {
  /** Host name of its machine. */
  host: string | null;
  /** Its process id. */
  pid: number | null;
  /** When it started. */
  startedAt: Date | null;
  /** The nestjs-docket version it runs. */
  version: string | null;
  /** How many tasks it runs at once, at most. */
  concurrency: number | null;
}
