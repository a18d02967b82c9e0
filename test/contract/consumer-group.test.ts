// The consumer group of a docket's stream: its pending entries (messages a worker read and has
// not acknowledged) are exactly the running tasks (what DocketInspector.depths() counts as
// `running`), their idle time decides redelivery, and a worker whose lease lapsed never takes
// its own running message back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { REDIS_ONLY, childWorker, deferred, uniqueName, useDocket, waitFor } from '../utils.js';
import { keyOf, pendingCount, runsHash, withRaw } from './raw.js';

@Injectable()
class LeaseTasks {
  runs: { worker: string; startedAt: number }[] = [];
  started = deferred();
  gate = deferred();

  @DocketTask()
  async hold(ms: number, @Ctx() ctx: TaskContext): Promise<number> {
    this.runs.push({ worker: ctx.worker, startedAt: Date.now() });
    this.started.resolve();
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.runs.length;
  }

  @DocketTask()
  async gated(label: string): Promise<string> {
    this.started.resolve();
    await this.gate.promise;
    return label;
  }

  /** Same name as the child process's task (test/fixtures/worker-process.ts); ends at once. */
  @DocketTask()
  async hang(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.runs.push({ worker: ctx.worker, startedAt: Date.now() });
    return `${ctx.worker}:${label}`;
  }
}

/** The idle time (ms) of each pending entry of docket `name`. */
function pendingIdle(name: string): Promise<number[]> {
  return withRaw(async (redis) =>
    (
      (await redis.xpending(keyOf(name, 'stream'), 'docket-workers', '-', '+', 10)) as [
        string,
        string,
        number,
        number,
      ][]
    ).map(([, , idle]) => idle),
  );
}

describe('consumer group', { timeout: 60_000 }, () => {
  it('depths().running counts the pending entries of the group, 0 without a group', async (t) => {
    const docket = await useDocket(t, [LeaseTasks], {
      worker: { concurrency: 2, minimumCheckInterval: 50, shutdownTimeout: 300 },
    });
    const tasks = docket.module.get(LeaseTasks);
    t.after(() => tasks.gate.resolve());
    const counts = async () => ({
      pending: await pendingCount(docket.name),
      running: (await docket.inspector.depths()).running,
    });
    assert.deepEqual(await counts(), { pending: 0, running: 0 });
    const one = await docket.client.add(LeaseTasks.prototype.gated, { key: 'one' })('one');
    const two = await docket.client.add(LeaseTasks.prototype.gated, { key: 'two' })('two');
    assert.deepEqual(await counts(), { pending: 0, running: 0 });
    const working = docket.worker.runUntilFinished();
    await waitFor(
      async () =>
        (await one.sync()) &&
        (await two.sync()) &&
        one.state === 'running' &&
        two.state === 'running',
      'both tasks to run',
    );
    assert.deepEqual(await counts(), { pending: 2, running: 2 });
    tasks.gate.resolve();
    await working;
    assert.deepEqual(await counts(), { pending: 0, running: 0 });
  });

  it('a worker never runs a message it is already running a second time', async (t) => {
    // A worker whose lease on a running task lapsed (its renewals could not be written for a
    // while: a slow or paused Redis) must not take its own running message back through
    // XAUTOCLAIM and run it a second time alongside the first.
    const docket = await useDocket(t, [LeaseTasks], {
      worker: {
        autoStart: true,
        name: 'leaser',
        redeliveryTimeout: 800,
        minimumCheckInterval: 50,
      },
    });
    const tasks = docket.module.get(LeaseTasks);
    const execution = await docket.client.add(LeaseTasks.prototype.hold)(2_500);
    await tasks.started.promise;
    await withRaw(async (redis) => {
      const stream = keyOf(docket.name, 'stream');
      const [[id]] = (await redis.xpending(stream, 'docket-workers', '-', '+', 10)) as [string][];
      // The lease lapses: the entry looks idle for a minute, as if renewals had failed.
      const until = Date.now() + 1_200;
      while (Date.now() < until) {
        await redis.xclaim(stream, 'docket-workers', 'leaser', 0, id, 'IDLE', 60_000, 'JUSTID');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await execution.result({ timeout: 10_000 });
    await waitFor(() => docket.worker.activeTasks === 0, 'the worker to be idle');
    assert.deepEqual(
      tasks.runs.map((r) => r.worker),
      ['leaser'],
      'the worker ran its own running message again',
    );
  });

  it(
    'redelivers the message of a killed worker once its pending entry sat idle redeliveryTimeout',
    { skip: REDIS_ONLY },
    async (t) => {
      const name = uniqueName('kill');
      const redeliveryTimeout = 800;
      const child = childWorker(t, name, 'child-worker', redeliveryTimeout);
      const docket = await useDocket(t, [LeaseTasks], {
        name,
        worker: { name: 'survivor', redeliveryTimeout, minimumCheckInterval: 100 },
      });
      const tasks = docket.module.get(LeaseTasks);
      const execution = await docket.client.add(LeaseTasks.prototype.hang, { key: 'h' })('job');
      assert.equal(await child.started(), 'child-worker:job');
      assert.equal((await runsHash(name, 'h')).worker, 'child-worker');

      // The message was last delivered or renewed `idle` ms before this moment at the latest.
      const askedAt = Date.now();
      const [idle] = await pendingIdle(name);
      const killedAt = Date.now();
      await child.killed();

      await docket.worker.runUntilFinished();
      assert.equal(await execution.result({ timeout: 5_000 }), 'survivor:job');
      assert.equal(tasks.runs.length, 1);
      const [run] = tasks.runs;
      assert.equal(run.worker, 'survivor');
      // Not before the message sat idle for redeliveryTimeout (1 ms for Redis's rounding).
      const earliest = askedAt - idle + redeliveryTimeout - 1;
      assert.ok(run.startedAt >= earliest, `redelivered ${earliest - run.startedAt}ms early`);
      assert.ok(
        run.startedAt - killedAt < 5_000,
        `redelivered ${run.startedAt - killedAt}ms after kill`,
      );
      const hash = await runsHash(name, 'h');
      assert.equal(hash.state, 'completed');
      assert.equal(hash.worker, 'survivor');
      assert.equal(child.starts, 1);
      assert.equal(await pendingCount(name), 0);
    },
  );
});
