// A worker whose lease on a running task lapsed (its renewals could not be written for a while:
// a slow or paused Redis) must not take its own running message back through XAUTOCLAIM and
// run it a second time alongside the first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../../lib/index.js';
import { deferred, rawRedis, useDocket, waitFor } from '../../utils.js';

@Injectable()
class LeaseTasks {
  runs: { worker: string; startedAt: number }[] = [];
  started = deferred();

  @DocketTask()
  async hold(ms: number, @Ctx() ctx: TaskContext): Promise<number> {
    this.runs.push({ worker: ctx.worker, startedAt: Date.now() });
    this.started.resolve();
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.runs.length;
  }
}

describe('leases', { timeout: 60_000 }, () => {
  it('a worker never runs a message it is already running a second time', async (t) => {
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
    const redis = rawRedis();
    try {
      const stream = `{${docket.name}}:stream`;
      const [[id]] = (await redis.xpending(stream, 'docket-workers', '-', '+', 10)) as [string][];
      // The lease lapses: the entry looks idle for a minute, as if renewals had failed.
      const until = Date.now() + 1_200;
      while (Date.now() < until) {
        await redis.xclaim(stream, 'docket-workers', 'leaser', 0, id, 'IDLE', 60_000, 'JUSTID');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      redis.disconnect();
    }
    await execution.result({ timeout: 10_000 });
    await waitFor(() => docket.worker.activeTasks === 0, 'the worker to be idle');
    assert.deepEqual(
      tasks.runs.map((r) => r.worker),
      ['leaser'],
      'the worker ran its own running message again',
    );
  });
});
