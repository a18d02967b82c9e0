import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { Redis } from 'ioredis';
import {
  NEEDS_REDIS_SERVER,
  createDocket,
  startRedisServer,
  useDocket,
  waitFor,
} from '../utils.js';

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
    assert.equal((await docket.inspector.depths()).running, 0);
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
    // nothing left on the stream: neither waiting nor read and unacknowledged
    const { queue, running } = await first.inspector.depths();
    assert.deepEqual({ queue, running }, { queue: 0, running: 0 });
  });
});

describe('connections', { timeout: 60_000 }, () => {
  it(
    'a worker uses one command, one blocking and one subscriber connection, all closed at the end',
    { skip: NEEDS_REDIS_SERVER },
    async (t) => {
      const redis = await startRedisServer();
      t.after(() => redis.kill());
      const probe = new Redis(redis.url);
      t.after(() => probe.disconnect());
      const probeId = String(await probe.client('ID'));
      const others = async () =>
        String(await probe.client('LIST'))
          .split('\n')
          .filter((line) => line && !line.startsWith(`id=${probeId} `));
      const docket = await createDocket([Tasks], {
        url: redis.url,
        worker: { autoStart: true, concurrency: 4, minimumCheckInterval: 100 },
      });
      t.after(() => docket.close());
      const executions = [];
      for (let n = 0; n < 8; n++) executions.push(await docket.client.add(Tasks.prototype.busy)(n));
      await Promise.all(executions.map((e) => e.result({ timeout: 5_000 })));
      const connections = await others();
      assert.equal(connections.length, 3, connections.join('\n'));
      assert.equal(connections.filter((c) => / cmd=xreadgroup /.test(c)).length, 1);
      assert.equal(connections.filter((c) => / sub=[1-9]/.test(c)).length, 1);
      await docket.close();
      await waitFor(async () => (await others()).length === 0, 'every connection to close');
    },
  );
});
