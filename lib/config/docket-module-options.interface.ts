import type { Cluster, Redis, RedisOptions } from 'ioredis';

/** Options of the worker that runs inside a process importing `DocketModule`. */
export interface DocketWorkerOptions {
  /** Consumer name in the stream's group. @default `${hostname}#${pid}` */
  name?: string;
  /** Most tasks this worker runs at once. @default 10 */
  concurrency?: number;
  /** A message idle this long (its worker gone) is redelivered to another worker, in ms. @default 300000 */
  redeliveryTimeout?: number;
  /** Wait after a Redis error before a loop goes on, in ms. @default 5000 */
  reconnectionDelay?: number;
  /** Longest a blocking read for new work waits before the loop looks around, in ms. @default 1000 */
  minimumCheckInterval?: number;
  /** Longest the scheduler sleeps while it cannot be woken by Redis, in ms. @default 250 */
  schedulingResolution?: number;
  /** Seed automatic perpetual and cron tasks at start. @default true */
  scheduleAutomaticTasks?: boolean;
  /** Drain deadline on shutdown, in ms. @default 30000 */
  shutdownTimeout?: number;
  /** Start the loops when the application has bootstrapped. @default true */
  autoStart?: boolean;
  /**
   * An attempt whose worker vanished this many times after starting it (it died, was killed,
   * or hung past `redeliveryTimeout`) is not started again: it is dead-lettered with
   * `PoisonMessageError`. @default 3
   */
  maxRedeliveries?: number;
  /**
   * The name of a task of this application that runs a message naming a task this worker does
   * not know, instead of dead-lettering it: it receives the message's arguments, and its
   * `ctx.taskName` is the unknown name. Its own options (retry, timeout…) apply.
   * @default none: such a message is dead-lettered
   */
  fallbackTask?: string;
}

/** Options of `DocketModule.forRoot()`; durations are milliseconds. */
export interface DocketModuleOptions {
  /** The docket's name; every Redis key is prefixed `{name}:`. @default 'docket' */
  name?: string;
  /** Redis URL. @default process.env.DOCKET_URL ?? 'redis://localhost:6379/0' */
  url?: string;
  /** ioredis options merged over those parsed from the URL, or a client to reuse. */
  connection?: RedisOptions | Redis | Cluster;
  /** How long state, result and progress of a finished execution are kept; 0 keeps nothing. @default 900000 */
  executionTtl?: number;
  /** Worker heartbeat period. @default 2000 */
  heartbeatInterval?: number;
  /** A worker is gone after `heartbeatInterval × missedHeartbeats`. @default 5 */
  missedHeartbeats?: number;
  /** Largest serialized arguments or result accepted, in bytes. @default 1048576 */
  maxPayloadBytes?: number;
  /** Longest task key accepted, in UTF-8 bytes. @default 1024 */
  maxKeyBytes?: number;
  /** Register Prometheus metrics when `prom-client` is installed. @default true */
  metrics?: boolean;
  /** Worker options; `false` makes this process a producer only. @default {} */
  worker?: DocketWorkerOptions | false;
}

/** Factory for `DocketModule.forRootAsync({ useClass })`. */
export interface DocketOptionsFactory {
  createDocketOptions(): DocketModuleOptions | Promise<DocketModuleOptions>;
}
