import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { assertNoKeyWithoutTtl, pendingCount, rawRedis, useDocket } from '../utils.js';

@Injectable()
class Tasks {
  active = 0;
  maxActive = 0;
  done: number[] = [];

  @DocketTask()
  async busy(n: number, @Ctx() ctx: TaskContext): Promise<string> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      await new Promise((resolve) => setTimeout(resolve, 80));
      this.done.push(n);
      return `${n} on ${ctx.worker}`;
    } finally {
      this.active--;
    }
  }
}

describe('worker concurrency', { timeout: 60_000 }, () => {
  it('never runs more than `concurrency` tasks at once and runs them all', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { name: 'bounded', concurrency: 3, minimumCheckInterval: 100 },
    });
    const tasks = docket.module.get(Tasks);
    const executions = [];
    for (let n = 0; n < 10; n++) executions.push(await docket.client.add(Tasks.prototype.busy)(n));
    await docket.worker.runUntilFinished();
    assert.ok(tasks.maxActive <= 3, `${tasks.maxActive} ran at once`);
    assert.equal(tasks.maxActive, 3, 'the worker did not use its three slots');
    assert.deepEqual(
      [...tasks.done].sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    for (const [n, execution] of executions.entries()) {
      assert.equal(await execution.result({ timeout: 2_000 }), `${n} on bounded`);
    }
    assert.equal(await pendingCount(docket.name), 0);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('shares the work of one docket between two workers, each within its bound', async (t) => {
    const first = await useDocket(t, [Tasks], {
      worker: { name: 'a', concurrency: 2, minimumCheckInterval: 50 },
    });
    const second = await useDocket(t, [Tasks], {
      name: first.name,
      worker: { name: 'b', concurrency: 2, minimumCheckInterval: 50 },
    });
    const executions = [];
    for (let n = 0; n < 12; n++) executions.push(await first.client.add(Tasks.prototype.busy)(n));
    await Promise.all([first.worker.runUntilFinished(), second.worker.runUntilFinished()]);
    const a = first.module.get(Tasks);
    const b = second.module.get(Tasks);
    assert.ok(a.maxActive <= 2 && b.maxActive <= 2, `${a.maxActive} and ${b.maxActive} at once`);
    assert.deepEqual(
      [...a.done, ...b.done].sort((x, y) => x - y),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    const redis = rawRedis();
    try {
      assert.equal(await redis.xlen(`{${first.name}}:stream`), 0);
    } finally {
      redis.disconnect();
    }
    await assertNoKeyWithoutTtl(first.name);
  });
});
