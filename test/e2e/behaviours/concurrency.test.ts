import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, ExecutionCancelledError, type TaskContext } from '../../../lib/index.js';
import { createDocket, deferred, waitsInLine, type TestDocket } from '../../utils.js';
import {
  Timeline,
  assertSequential,
  closeAll,
  createDockets,
  overlap,
  sleep,
  until,
  within,
} from './helpers.js';

@Injectable()
class ConcurrencyTasks {
  timeline = new Timeline();
  gate = deferred();
  firstStarted = deferred();

  @DocketTask({ concurrency: { max: 1, argument: 'customerId' } })
  async perCustomer(customerId: number, label: string): Promise<void> {
    await this.timeline.track(`${customerId}:${label}`, () => sleep(60));
  }

  @DocketTask({ concurrency: { max: 2 } })
  async perTask(label: string): Promise<void> {
    await this.timeline.track(label, () => sleep(50));
  }

  @DocketTask({ concurrency: { max: 1 } })
  async gated(label: string): Promise<void> {
    await this.timeline.track(label, async () => {
      this.firstStarted.resolve();
      await this.gate.promise;
    });
  }

  @DocketTask({ concurrency: { max: 1, scope: 'reports' } })
  async dailyReport(label: string): Promise<void> {
    await this.timeline.track(`daily:${label}`, () => sleep(40));
  }

  @DocketTask({ concurrency: { max: 1, scope: 'reports' } })
  async weeklyReport(label: string): Promise<void> {
    await this.timeline.track(`weekly:${label}`, () => sleep(40));
  }
}

/** Shared by the two apps of the cross-worker test. */
const acrossWorkers = { timeline: new Timeline(), workers: new Set<string>() };

@Injectable()
class CrossWorkerTasks {
  @DocketTask({ concurrency: { max: 2 } })
  async bounded(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    acrossWorkers.workers.add(ctx.worker);
    await acrossWorkers.timeline.track(label, () => sleep(80));
  }
}

describe('concurrency', () => {
  it('never overlaps two runs for one argument value, while other values run alongside', async () => {
    const docket = await createDocket([ConcurrencyTasks]);
    try {
      const tasks = docket.module.get(ConcurrencyTasks);
      // A fresh key per call: the function add() returns reuses its key.
      const add = (customerId: number, label: string) =>
        docket.client.add(ConcurrencyTasks.prototype.perCustomer)(customerId, label);
      for (const label of ['a', 'b', 'c']) {
        await add(1, label);
        await add(2, label);
      }
      await within(docket.worker.runUntilFinished(), 10_000, 'all six runs');
      const one = tasks.timeline.of((l) => l.startsWith('1:'));
      const two = tasks.timeline.of((l) => l.startsWith('2:'));
      assert.equal(one.length, 3);
      assert.equal(two.length, 3);
      assertSequential(one, 'customer 1');
      assertSequential(two, 'customer 2');
      assert.ok(
        one.some((a) => two.some((b) => overlap(a, b))),
        'customers 1 and 2 never ran at the same time',
      );
      assert.deepEqual(
        one.map((i) => i.label),
        ['1:a', '1:b', '1:c'],
      );
    } finally {
      await docket.close();
    }
  });

  it('starts waiting tasks in the order they arrived', async () => {
    const docket = await createDocket([ConcurrencyTasks]);
    try {
      const tasks = docket.module.get(ConcurrencyTasks);
      const add = (label: string) => docket.client.add(ConcurrencyTasks.prototype.gated)(label);
      await add('first');
      const running = docket.worker.runUntilFinished();
      await within(tasks.firstStarted.promise, 5_000, 'the first task to start');
      const later = ['second', 'third', 'fourth', 'fifth', 'sixth'];
      for (const label of later) {
        const execution = await add(label);
        // It arrived while the slot is taken: it waits in line before the next one comes.
        await until(() => waitsInLine(docket, execution.key, 1), `${label} to wait`);
      }
      tasks.gate.resolve();
      await within(running, 10_000, 'the line to drain');
      assert.deepEqual(tasks.timeline.started, ['first', ...later]);
      assertSequential(tasks.timeline.intervals, 'gated');
    } finally {
      openGate(docket);
      await docket.close();
    }
  });

  it('holds a per-task limit below the worker concurrency', async () => {
    const docket = await createDocket([ConcurrencyTasks], { worker: { concurrency: 10 } });
    try {
      const tasks = docket.module.get(ConcurrencyTasks);
      for (let i = 0; i < 8; i++)
        await docket.client.add(ConcurrencyTasks.prototype.perTask)(`t${i}`);
      await within(docket.worker.runUntilFinished(), 10_000, 'all eight runs');
      assert.equal(tasks.timeline.intervals.length, 8);
      assert.equal(tasks.timeline.maxRunning, 2);
    } finally {
      await docket.close();
    }
  });

  it('holds the limit across two workers of one docket', async () => {
    const apps = await createDockets(2, [CrossWorkerTasks], { worker: { concurrency: 10 } });
    const [a, b] = apps;
    try {
      for (let i = 0; i < 10; i++) {
        await (i % 2 ? a : b).client.add(CrossWorkerTasks.prototype.bounded)(`t${i}`);
      }
      await within(
        Promise.all([a.worker.runUntilFinished(), b.worker.runUntilFinished()]),
        20_000,
        'all ten runs',
      );
      assert.equal(acrossWorkers.timeline.intervals.length, 10);
      assert.equal(acrossWorkers.timeline.maxRunning, 2);
    } finally {
      await closeAll(apps);
    }
  });

  it('removes a cancelled waiting task from the line; the others go on', async () => {
    const docket = await createDocket([ConcurrencyTasks]);
    try {
      const tasks = docket.module.get(ConcurrencyTasks);
      const add = (label: string) => docket.client.add(ConcurrencyTasks.prototype.gated)(label);
      const first = await add('first');
      const second = await add('second');
      const third = await add('third');
      const running = docket.worker.runUntilFinished();
      await within(tasks.firstStarted.promise, 5_000, 'the first task to start');
      await until(() => waitsInLine(docket, second.key, 1), 'second to wait');
      await docket.client.cancel(second.key);
      await assert.rejects(second.result({ timeout: 2_000 }), ExecutionCancelledError);
      tasks.gate.resolve();
      await within(running, 10_000, 'the line to drain');
      assert.deepEqual(tasks.timeline.started, ['first', 'third']);
      await first.result({ timeout: 2_000 });
      await third.result({ timeout: 2_000 });
      assert.equal(first.state, 'completed');
      assert.equal(third.state, 'completed');
      assert.equal((await docket.client.getExecution(second.key))?.state, 'cancelled');
    } finally {
      openGate(docket);
      await docket.close();
    }
  });

  it('gives back the slot of a waiting task that is struck when its turn comes', async () => {
    const docket = await createDocket([ConcurrencyTasks]);
    try {
      const tasks = docket.module.get(ConcurrencyTasks);
      const add = (label: string) => docket.client.add(ConcurrencyTasks.prototype.gated)(label);
      await add('first');
      const second = await add('second');
      const third = await add('third');
      const running = docket.worker.runUntilFinished();
      await within(tasks.firstStarted.promise, 5_000, 'the first task to start');
      await until(() => waitsInLine(docket, third.key, 1), 'third to wait');
      await docket.client.strike({ task: 'gated', parameter: 'label', value: 'second' });
      tasks.gate.resolve();
      await within(running, 10_000, 'the line to drain');
      await assert.rejects(second.result({ timeout: 2_000 }), ExecutionCancelledError);
      assert.deepEqual(tasks.timeline.started, ['first', 'third']);
      await third.result({ timeout: 2_000 });
      assert.equal(third.state, 'completed');
    } finally {
      openGate(docket);
      await docket.close();
    }
  });

  it('clear() removes the tasks waiting for a slot', async () => {
    const docket = await createDocket([ConcurrencyTasks]);
    try {
      const tasks = docket.module.get(ConcurrencyTasks);
      const add = (label: string) => docket.client.add(ConcurrencyTasks.prototype.gated)(label);
      await add('first');
      const second = await add('second');
      const running = docket.worker.runUntilFinished();
      await within(tasks.firstStarted.promise, 5_000, 'the first task to start');
      await until(() => waitsInLine(docket, second.key, 1), 'second to wait');
      assert.equal(await docket.client.clear(), 1);
      assert.equal((await docket.client.getExecution(second.key))?.state, 'cancelled');
      tasks.gate.resolve();
      await within(running, 10_000, 'the worker to finish');
      assert.deepEqual(tasks.timeline.started, ['first']);
    } finally {
      openGate(docket);
      await docket.close();
    }
  });

  it('shares one limit between the tasks of a scope', async () => {
    const docket = await createDocket([ConcurrencyTasks]);
    try {
      const tasks = docket.module.get(ConcurrencyTasks);
      for (const label of ['1', '2', '3']) {
        await docket.client.add(ConcurrencyTasks.prototype.dailyReport)(label);
        await docket.client.add(ConcurrencyTasks.prototype.weeklyReport)(label);
      }
      await within(docket.worker.runUntilFinished(), 10_000, 'all six reports');
      assert.equal(tasks.timeline.intervals.length, 6);
      assert.equal(tasks.timeline.maxRunning, 1);
      assertSequential(tasks.timeline.intervals, 'reports');
    } finally {
      await docket.close();
    }
  });
});

/** Let a gated task end (so that closing does not wait on it). */
function openGate(docket: TestDocket): void {
  docket.module.get(ConcurrencyTasks).gate.resolve();
}
