import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { createDocket, deferred, uniqueName, useDocket, waitFor } from '../utils.js';

// SPEC §11: among due tasks no worker has read yet, the lowest priority number starts first;
// equal priorities keep add order; retries keep their priority.

@Injectable()
class Tasks {
  readonly started: string[] = [];
  gate = deferred();
  failures = 0;

  @DocketTask()
  async step(label: string): Promise<void> {
    this.started.push(label);
  }

  @DocketTask({ priority: 0 })
  async urgent(label: string): Promise<void> {
    this.started.push(label);
  }

  /** The first start waits for the gate: the worker is busy while the test adds. */
  @DocketTask()
  async hold(label: string): Promise<void> {
    this.started.push(label);
    await this.gate.promise;
  }

  @DocketTask({ retry: { attempts: 2 } })
  async flaky(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.started.push(`${label}#${ctx.attempt}`);
    if (ctx.attempt === 1) throw new Error('first attempt fails');
  }
}

const ONE = { worker: { concurrency: 1, minimumCheckInterval: 50 } };

describe('priority', { timeout: 30_000 }, () => {
  it('starts the lowest number first, add order within a level', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    const plan: [string, number | undefined][] = [
      ['a9', 9],
      ['a5', undefined],
      ['a0', 0],
      ['b5', 5],
      ['b9', 9],
      ['b0', 0],
      ['a3', 3],
      ['c5', undefined],
    ];
    for (const [label, priority] of plan) {
      await docket.client.add(Tasks.prototype.step, { priority })(label);
    }
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).started, [
      'a0',
      'b0',
      'a3',
      'a5',
      'b5',
      'c5',
      'a9',
      'b9',
    ]);
  });

  it("uses the task's declared priority unless the add gives one", async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    await docket.client.add(Tasks.prototype.step)('bulk1');
    await docket.client.add(Tasks.prototype.step)('bulk2');
    await docket.client.add(Tasks.prototype.urgent)('urgent');
    await docket.client.add(Tasks.prototype.urgent, { priority: 9 })('demoted');
    await docket.client.addMany(Tasks.prototype.step, [['many1'], ['many2']], { priority: 1 });
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).started, [
      'urgent',
      'many1',
      'many2',
      'bulk1',
      'bulk2',
      'demoted',
    ]);
  });

  it('an urgent task added behind a backlog starts next, not after the read-ahead', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.hold)('holder');
    for (let i = 0; i < 20; i++)
      await docket.client.add(Tasks.prototype.step, { priority: 9 })(`bulk${i}`);
    // a lane of another priority exists before the worker starts reading
    await docket.client.add(Tasks.prototype.step, { priority: 8 })('early');
    void docket.worker.runForever();
    await waitFor(() => tasks.started.includes('holder'), 'the holder to run');
    await docket.client.add(Tasks.prototype.urgent)('urgent');
    tasks.gate.resolve();
    await waitFor(() => tasks.started.length === 23, 'every task to start', 10_000);
    assert.deepEqual(tasks.started.slice(0, 3), ['holder', 'urgent', 'early']);
  });

  it('a retry keeps its priority', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.flaky, { priority: 0 })('f');
    for (let i = 0; i < 5; i++) {
      await docket.client.add(Tasks.prototype.step, { priority: 6 })(`s${i}`);
    }
    await docket.worker.runUntilFinished();
    // the retry is queued when the failed end is written; by then the worker may have read the
    // next task into its free slot: the retry goes ahead of everything still unread
    assert.equal(tasks.started[0], 'f#1');
    // (index 1 right after the first attempt, or 2 behind the one task read meanwhile; -1, the
    // retry never ran, fails)
    const retry = tasks.started.indexOf('f#2');
    assert.ok(retry >= 1 && retry <= 2, tasks.started.join(' '));
  });

  it('future tasks keep their priority when they come due', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    const when = new Date(Date.now() + 300);
    await docket.client.add(Tasks.prototype.step, { when, priority: 7 })('late7');
    await docket.client.add(Tasks.prototype.step, { when, priority: 2 })('late2');
    await docket.client.add(Tasks.prototype.step, { when })('late5');
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).started, ['late2', 'late5', 'late7']);
  });

  it('refuses a priority that is not a whole number from 0 to 9', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    for (const priority of [10, -1, 1.5, '1', Number.NaN]) {
      assert.throws(
        () => docket.client.add(Tasks.prototype.step, { priority: priority as number }),
        (error: Error) =>
          error instanceof TypeError &&
          /"priority" must be a whole number from 0 \(first\) to 9 \(last\)/.test(error.message),
        String(priority),
      );
    }
    assert.throws(
      () => docket.client.addMany(Tasks.prototype.step, [['x']], { priority: 12 }),
      TypeError,
    );
    assert.throws(
      () => docket.client.replace(Tasks.prototype.step, { key: 'k', priority: -3 }),
      TypeError,
    );
  });

  it('a decorator priority out of range fails the boot naming the option', async () => {
    @Injectable()
    class Bad {
      @DocketTask({ priority: 10 })
      async tooLow(): Promise<void> {}
    }
    await assert.rejects(
      createDocket([Bad], { name: uniqueName() }),
      /task "tooLow" \(Bad#tooLow\): priority must be a whole number from 0/,
    );
  });
});
