import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { DynamicModule, ModuleMetadata, Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis, type RedisOptions } from 'ioredis';
import { DocketClient, DocketInspector, DocketModule, DocketWorker } from '../lib/index.js';
import type { DocketModuleOptions } from '../lib/index.js';

/**
 * The backend this test process runs on: test/run.mjs runs the engine suite once on its own
 * Redis and once more with DOCKET_TEST_BACKEND=memory (the in-process `memory://` backend).
 */
export const BACKEND: 'redis' | 'memory' =
  process.env.DOCKET_TEST_BACKEND === 'memory' ? 'memory' : 'redis';

/** `{ skip }` for a test that needs a Redis server (other processes, outages, raw sockets). */
export const REDIS_ONLY =
  BACKEND === 'memory' ? 'needs a Redis server: the memory:// backend lives in one process' : false;

/**
 * `{ skip }` for a test that starts a redis-server of its own (restarts, outages): test/run.mjs
 * sets DOCKET_TEST_NO_REDIS_SERVER when there is no redis-server binary to start.
 */
export const NEEDS_REDIS_SERVER = process.env.DOCKET_TEST_NO_REDIS_SERVER
  ? 'needs a redis-server binary on the PATH'
  : false;

/** The URL of the test backend: the test run's own Redis (started by test/run.mjs), or memory. */
export const REDIS_URL =
  BACKEND === 'memory'
    ? 'memory://tests'
    : (process.env.DOCKET_TEST_URL ?? 'redis://127.0.0.1:6379/0');

/** A docket name no other test uses. */
export function uniqueName(prefix = 't'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export interface TestDocket {
  module: TestingModule;
  client: DocketClient;
  worker: DocketWorker;
  /** The read model: depths, snapshot, workers, progress, strikes, state events. */
  inspector: DocketInspector;
  name: string;
  close(): Promise<void>;
}

/**
 * Boot a Nest testing module with `DocketModule.forRoot` on the test Redis and the given
 * providers. The worker does not start by itself unless `worker.autoStart` is given.
 */
export async function createDocket(
  providers: Provider[] = [],
  options: DocketModuleOptions = {},
  imports: ModuleMetadata['imports'] = [],
): Promise<TestDocket> {
  const name = options.name ?? uniqueName();
  const worker = options.worker === false ? false : { autoStart: false, ...options.worker };
  const docket: DynamicModule = DocketModule.forRoot({ url: REDIS_URL, ...options, name, worker });
  const module = await Test.createTestingModule({
    imports: [docket, ...imports],
    providers,
  }).compile();
  module.useLogger(false);
  try {
    await module.init();
  } catch (error) {
    // A boot error must not leave the connections open (they would keep the test file alive).
    await module.close().catch(() => undefined);
    throw error;
  }
  return {
    module,
    client: module.get(DocketClient),
    worker: module.get(DocketWorker),
    inspector: module.get(DocketInspector),
    name,
    close: () => module.close(),
  };
}

/**
 * `createDocket` for one test: the docket is closed after the test, whether it passed or not,
 * with a drain deadline of 2 s unless `worker.shutdownTimeout` is given.
 */
export async function useDocket(
  t: { after(fn: () => Promise<void>): void },
  providers: Provider[] = [],
  options: DocketModuleOptions = {},
  imports: ModuleMetadata['imports'] = [],
): Promise<TestDocket> {
  // A short drain deadline (unless given), so that a failing test whose task still runs closes
  // quickly.
  const worker = options.worker === false ? false : { shutdownTimeout: 2_000, ...options.worker };
  const docket = await createDocket(providers, { ...options, worker }, imports);
  t.after(() => docket.close());
  return docket;
}

/** A promise with its resolve function, for waiting on what a handler does. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Check `condition` until it holds, for state that changes without an event to wait on (the
 * heartbeat registry); fails after `timeout` ms with `what`.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  what: string,
  timeout = 5_000,
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await condition();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout}ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Where the tasks of a docket are: due and not read, future, and read by a worker. */
export async function places(docket: {
  inspector: DocketInspector;
}): Promise<{ queue: number; schedule: number; running: number }> {
  const { queue, schedule, running } = await docket.inspector.depths();
  return { queue, schedule, running };
}

/** Every field the read model shows of the execution of `key` (which must exist). */
export async function readModel(client: DocketClient, key: string) {
  const execution = await client.getExecution(key);
  if (!execution) throw new Error(`no execution of ${key}`);
  const { state, taskName, args, when, attempt, generation, worker, startedAt, completedAt } =
    execution;
  return {
    ...{ state, taskName, args, when, attempt, generation, worker, startedAt, completedAt },
    ...{ error: execution.error, progress: execution.progress },
  };
}

/**
 * Whether task `key` waits in a concurrency line while `running` tasks run: the snapshot lists
 * it, and the depths show that the stream holds only the running tasks' messages and the queue
 * nothing (so `key` is neither on the stream nor in the queue: it is in a waiting line).
 */
export async function waitsInLine(
  docket: { inspector: DocketInspector },
  key: string,
  running: number,
): Promise<boolean> {
  const snapshot = await docket.inspector.snapshot();
  if (!snapshot.future.some((f) => f.key === key)) return false;
  const depths = await docket.inspector.depths();
  return depths.queue === 0 && depths.schedule === 0 && depths.running === running;
}

/** A worker in a child process (test/fixtures/worker-process.ts) that runs the task `hang`. */
export interface ChildWorker {
  /** The `<worker>:<label>` of the first task the child started (undefined after 20 s). */
  started(): Promise<string | undefined>;
  /** How many tasks the child started so far. */
  readonly starts: number;
  /** SIGKILL the child and wait until it is gone. */
  killed(): Promise<void>;
}

/**
 * Start a worker named `worker` on docket `name` in a child process (killed after the test);
 * its task `hang(label)` reports its start on the child's stdout and then hangs for a minute.
 */
export function childWorker(
  t: { after(fn: () => Promise<void>): void },
  name: string,
  worker: string,
  redeliveryTimeout: number,
): ChildWorker {
  const fixture = fileURLToPath(new URL('./fixtures/worker-process.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [fixture, name, REDIS_URL, worker, String(redeliveryTimeout)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const labels: string[] = [];
  const first = deferred<string>();
  let buffered = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const match = /^started (.*)$/.exec(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      if (match) {
        labels.push(match[1]);
        first.resolve(match[1]);
      }
    }
  });
  const killed = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  t.after(killed);
  return {
    started: async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), 20_000);
      });
      try {
        return await Promise.race([first.promise, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    get starts() {
      return labels.length;
    },
    killed,
  };
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ExtraRedis {
  url: string;
  port: number;
  /** Kill the server (SIGKILL) and wait until it is gone. */
  kill(): Promise<void>;
}

/**
 * Start a redis-server of its own (on `port`, or a free one), for tests that take Redis away.
 * It starts empty: nothing is saved.
 */
/** Whether a Redis server answers PING now (one try, no retries, no offline queue). */
export async function redisAnswers(options: RedisOptions): Promise<boolean> {
  const probe = new Redis({
    ...options,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export async function startRedisServer(port?: number): Promise<ExtraRedis> {
  port ??= await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}/0`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    const up = await redisAnswers({ host: '127.0.0.1', port });
    if (up) break;
    if (i >= 100) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    port,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
