// Redis going away under a running worker: a restart (kill and start again on the same port;
// AOF keeps the data), an outage of ~10 s, and a lost pub/sub connection. The worker (autoStart)
// carries on by itself, every task added before completes, and a producer's add during the
// outage fails fast with a clear error instead of waiting in an offline queue.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketTask,
  ExecutionCancelledError,
  type Execution,
  type TaskContext,
} from '../../../lib/index.js';
import { deferred, waitFor } from '../../utils.js';
import { CapturingLogger } from './scenarios.js';
import { hasBinary, removeDir, startStandalone, type RedisServer } from './servers.js';
import { Test, type TestingModule } from '@nestjs/testing';
import { DocketClient, DocketInspector, DocketModule, DocketWorker } from '../../../lib/index.js';
import { Redis } from 'ioredis';

@Injectable()
class OutageTasks {
  /** Every run: key and worker. */
  runs: { key: string; worker: string }[] = [];
  started = deferred();

  @DocketTask({ name: 'out.echo', retry: { attempts: Infinity, delay: 100 } })
  async echo(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.runs.push({ key: ctx.key, worker: ctx.worker });
    return value;
  }

  /** Runs `ms`, then returns its key. */
  @DocketTask({ name: 'out.slow' })
  async slow(ms: number, @Ctx() ctx: TaskContext): Promise<string> {
    this.runs.push({ key: ctx.key, worker: ctx.worker });
    this.started.resolve();
    await new Promise((resolve) => setTimeout(resolve, ms));
    return ctx.key;
  }

  /** Runs until aborted (then throws the reason) or `ms` passed. */
  @DocketTask({ name: 'out.abortable' })
  async abortable(ms: number, @Ctx() ctx: TaskContext): Promise<string> {
    this.runs.push({ key: ctx.key, worker: ctx.worker });
    this.started.resolve();
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)));
    });
    ctx.signal.throwIfAborted();
    return 'ran to its end';
  }

  /** Disconnects every pub/sub client of the server at `port`, then ends. */
  @DocketTask({ name: 'out.cutPubsub' })
  async cutPubsub(port: number): Promise<string> {
    await killPubsubClients(port);
    return 'cut';
  }
}

async function killPubsubClients(port: number): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port });
  try {
    await redis.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
  } finally {
    redis.disconnect();
  }
}

interface OutageDocket {
  module: TestingModule;
  client: DocketClient;
  worker: DocketWorker;
  tasks: OutageTasks;
  logger: CapturingLogger;
  close(): Promise<void>;
}

async function boot(server: RedisServer, connection?: Redis): Promise<OutageDocket> {
  const module = await Test.createTestingModule({
    imports: [
      DocketModule.forRoot({
        url: `redis://127.0.0.1:${server.port}/0`,
        connection,
        name: 'outage',
        worker: {
          autoStart: true,
          redeliveryTimeout: 2_000,
          reconnectionDelay: 200,
          minimumCheckInterval: 200,
          shutdownTimeout: 2_000,
        },
      }),
    ],
    providers: [OutageTasks],
  }).compile();
  const logger = new CapturingLogger();
  module.useLogger(logger);
  await module.init();
  return {
    module,
    client: module.get(DocketClient),
    worker: module.get(DocketWorker),
    tasks: module.get(OutageTasks),
    logger,
    close: () => module.close(),
  };
}

/** A Redis with AOF of its own, and a docket with a worker on it, for one test. */
async function withRedis(
  body: (server: RedisServer, docket: OutageDocket) => Promise<void>,
  connection?: (server: RedisServer) => Redis,
) {
  const server = await startStandalone({ aof: true });
  let docket: OutageDocket | undefined;
  try {
    docket = await boot(server, connection?.(server));
    await body(server, docket);
  } finally {
    await docket?.close();
    await server.stop();
    removeDir(server.dir);
  }
}

/** How many messages a worker read and has not acknowledged (the running tasks). */
async function pending(docket: OutageDocket): Promise<number> {
  return (await docket.module.get(DocketInspector).depths()).running;
}

/** `add` again until Redis takes it, as a producer with a retry would. */
async function addSoon(docket: OutageDocket, add: () => Promise<Execution>): Promise<Execution> {
  for (let i = 0; ; i++) {
    try {
      return await add();
    } catch (error) {
      if (i > 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const skip = !hasBinary('redis-server') && 'redis-server is not installed';

describe('Redis restarts and outages', { skip, timeout: 120_000, concurrency: 2 }, () => {
  it(
    'a worker survives a restart; tasks added before and after complete',
    { timeout: 60_000 },
    () =>
      withRedis(async (server, docket) => {
        const { client, tasks } = docket;
        const echo = (key: string, delay = 0) =>
          client.add(OutageTasks.prototype.echo, { key, delay })(key);
        const before: Execution[] = [];
        for (let i = 0; i < 10; i++) before.push(await echo(`now-${i}`));
        for (let i = 0; i < 10; i++) before.push(await echo(`later-${i}`, 300 + i * 150));
        const running = await client.add(OutageTasks.prototype.slow, { key: 'running' })(1_000);
        await tasks.started.promise;

        await server.stop('SIGKILL');
        await server.start();

        const afterwards: Execution[] = [];
        for (let i = 0; i < 10; i++)
          afterwards.push(await addSoon(docket, () => echo(`after-${i}`)));
        for (const execution of [...before, ...afterwards, running]) {
          assert.equal(await execution.result({ timeout: 15_000 }), execution.key);
        }
        await waitFor(() => docket.worker.activeTasks === 0, 'the worker to be idle', 5_000);
        assert.equal(await pending(docket), 0);
        assert.ok(docket.worker.status().disruptions > 0, 'the worker did not notice the restart');
      }),
  );

  it('a worker survives a 10 s outage; add fails fast meanwhile', { timeout: 60_000 }, () =>
    withRedis(async (server, docket) => {
      const { client, tasks } = docket;
      const echo = (key: string, delay = 0) =>
        client.add(OutageTasks.prototype.echo, { key, delay })(key);
      const before: Execution[] = [];
      for (let i = 0; i < 5; i++) before.push(await echo(`now-${i}`));
      // Due during the outage, and after it.
      for (let i = 0; i < 10; i++) before.push(await echo(`later-${i}`, 1_000 + i * 1_000));
      const running = await client.add(OutageTasks.prototype.slow, { key: 'running' })(1_500);
      await tasks.started.promise;

      await server.stop('SIGKILL');
      const outageStarted = Date.now();
      const failures: { ms: number; error: Error }[] = [];
      while (Date.now() - outageStarted < 10_000) {
        const started = Date.now();
        const error = await echo(`during-${failures.length}`).then(
          () => assert.fail('add succeeded while Redis was down'),
          (e: Error) => e,
        );
        failures.push({ ms: Date.now() - started, error });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await server.start();

      assert.ok(failures.length >= 3, `${failures.length} adds in 10 s`);
      for (const [i, { ms, error }] of failures.entries()) {
        assert.ok(ms < 3_000, `add took ${ms}ms to fail`);
        // The first may still meet the dropped connection (see the todo test below).
        if (i === 0 && error.name === 'Error') continue;
        assert.equal(error.name, 'RedisUnavailableError', error.message);
        assert.match(error.message, /Redis at redis:\/\/127\.0\.0\.1:\d+\/0 is not reachable/);
      }
      const after = await addSoon(docket, () => echo('after'));
      for (const execution of [...before, after, running]) {
        assert.equal(await execution.result({ timeout: 20_000 }), execution.key);
      }
      await waitFor(() => docket.worker.activeTasks === 0, 'the worker to be idle', 5_000);
      assert.equal(await pending(docket), 0);
      const runs = tasks.runs.filter((r) => r.key === 'running').length;
      assert.ok(runs <= 2, `the task running at the outage ran ${runs} times`);
      for (const execution of [...before, after]) {
        assert.equal(
          tasks.runs.filter((r) => r.key === execution.key).length,
          1,
          `${execution.key} ran more than once`,
        );
      }
    }),
  );

  it(
    'an add at the moment the connection drops fails with RedisUnavailableError',
    {
      timeout: 30_000,
    },
    () => {
      let commands: Redis | undefined;
      // the application's own client, with the settings the engine gives its clients
      const connection = (server: RedisServer) =>
        (commands = new Redis({
          port: server.port,
          lazyConnect: true,
          enableOfflineQueue: false,
          autoResendUnfulfilledCommands: false,
          maxRetriesPerRequest: 0,
        }));
      return withRedis(async (_server, docket) => {
        await (await docket.client.add(OutageTasks.prototype.echo)('x')).result({ timeout: 5_000 });
        // A dropped connection: the socket is gone before ioredis has handled its close.
        commands!.stream.destroy();
        await assert.rejects(
          docket.client.add(OutageTasks.prototype.echo)('x'),
          (error: Error) => error.name === 'RedisUnavailableError',
        );
        commands!.disconnect();
      }, connection);
    },
  );

  it(
    'result() resolves when the task ends while the pub/sub connection reconnects',
    {
      timeout: 30_000,
    },
    () =>
      withRedis(async (server, docket) => {
        const execution = await docket.client.add(OutageTasks.prototype.cutPubsub)(server.port);
        assert.equal(await execution.result({ timeout: 10_000 }), 'cut');
      }),
  );

  it(
    'cancel() aborts a running task while the worker’s pub/sub connection reconnects',
    {
      timeout: 30_000,
    },
    () =>
      withRedis(async (server, docket) => {
        const execution = await docket.client.add(OutageTasks.prototype.abortable)(5_000);
        await docket.tasks.started.promise;
        await killPubsubClients(server.port);
        await docket.client.cancel(execution.key);
        await assert.rejects(execution.result({ timeout: 10_000 }), ExecutionCancelledError);
      }),
  );
});
