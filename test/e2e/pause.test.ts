import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { createDocket, deferred, uniqueName, useDocket, waitFor, waitsInLine } from '../utils.js';

// SPEC §11: a pause holds work (nothing starts, nothing is lost) until resume, which starts it
// again in its order, ahead of work added after it.

@Injectable()
class Tasks {
  readonly started: string[] = [];
  gate = deferred();

  @DocketTask()
  async step(label: string): Promise<void> {
    this.started.push(label);
  }

  @DocketTask()
  async other(label: string): Promise<void> {
    this.started.push(label);
  }

  @DocketTask({ concurrency: { argument: 'account', max: 1 } })
  async perAccount(account: string, label: string): Promise<void> {
    this.started.push(label);
    if (label === 'first') await this.gate.promise;
  }
}

const ONE = { worker: { concurrency: 1, minimumCheckInterval: 50 } };

describe('pause and resume', { timeout: 60_000 }, () => {
  it('holds the work across two workers and a restart, then runs it in order', async (t) => {
    const name = uniqueName('pause');
    const first = await createDocket([Tasks], { ...ONE, name });
    const second = await createDocket([Tasks], { ...ONE, name });
    const restarted: { docket?: Awaited<ReturnType<typeof createDocket>> } = {};
    t.after(async () => {
      await first.close().catch(() => undefined);
      await second.close().catch(() => undefined);
      await restarted.docket?.close();
    });
    await first.client.pause();
    assert.deepEqual(await second.client.paused(), { docket: true, tasks: [] });
    const labels = Array.from({ length: 10 }, (_, i) => `a${i}`);
    for (const label of labels) {
      const execution = await first.client.add(Tasks.prototype.step)(label);
      assert.equal(execution.disposition, 'scheduled');
    }
    const future = await first.client.add(Tasks.prototype.step, { delay: 150 })('later');
    // both workers read and hold every task; they return once only paused work is left
    await Promise.all([first.worker.runUntilFinished(), second.worker.runUntilFinished()]);
    await waitFor(async () => (await first.inspector.counts()).held === 11, 'all 11 held');
    assert.deepEqual(first.module.get(Tasks).started, []);
    assert.deepEqual(second.module.get(Tasks).started, []);
    const counts = await first.inspector.counts();
    assert.deepEqual(counts, { running: 0, queued: 11, scheduled: 0, held: 11 });
    const snapshot = await first.client.snapshot();
    assert.deepEqual(snapshot.paused, { docket: true, tasks: [] });
    assert.equal(snapshot.future.length, 11);
    assert.ok(snapshot.future.every((task) => task.state === 'queued' && task.paused === true));
    assert.equal((await first.client.getExecution(future.key))?.state, 'queued');

    // a restart: the pause and the held work live in Redis
    await first.close();
    await second.close();
    const third = await createDocket([Tasks], { ...ONE, name });
    restarted.docket = third;
    assert.deepEqual(await third.client.paused(), { docket: true, tasks: [] });
    await third.client.resume();
    // added after the resume: it starts after every task that was held
    await third.client.add(Tasks.prototype.step)('after');
    assert.deepEqual(await third.client.paused(), { docket: false, tasks: [] });
    await third.worker.runUntilFinished();
    assert.deepEqual(third.module.get(Tasks).started, [...labels, 'later', 'after']);
    assert.deepEqual(await third.inspector.counts(), {
      running: 0,
      queued: 0,
      scheduled: 0,
      held: 0,
    });
  });

  it('pauses one task by name or reference; the others run', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    const tasks = docket.module.get(Tasks);
    await docket.client.pause(Tasks.prototype.step);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: ['step'] });
    await docket.client.add(Tasks.prototype.step)('s1');
    await docket.client.add(Tasks.prototype.other)('o1');
    await docket.client.add(Tasks.prototype.step)('s2');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.started, ['o1']);
    // resuming the docket leaves a task paused by name paused
    await docket.client.resume();
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.started, ['o1']);
    await docket.client.resume('step');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.started, ['o1', 's1', 's2']);
  });

  it('a task paused under a paused docket waits for both to be lifted', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    const tasks = docket.module.get(Tasks);
    await docket.client.pause();
    await docket.client.pause('step');
    await docket.client.add(Tasks.prototype.step)('s1');
    await docket.client.add(Tasks.prototype.other)('o1');
    await docket.worker.runUntilFinished();
    await docket.client.resume('step');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.started, []);
    await docket.client.resume();
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.started, ['s1', 'o1']);
  });

  it('cancel, replace and clear reach held work', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    const tasks = docket.module.get(Tasks);
    await docket.client.pause();
    const cancelled = await docket.client.add(Tasks.prototype.step)('cancelled');
    const replaced = await docket.client.add(Tasks.prototype.step)('old');
    const cleared = await docket.client.add(Tasks.prototype.other)('cleared');
    await docket.worker.runUntilFinished();
    assert.equal((await docket.inspector.counts()).held, 3);
    assert.equal(await docket.client.cancel(cancelled.key), 'cancelled');
    assert.equal((await docket.client.getExecution(cancelled.key))?.state, 'cancelled');
    await docket.client.replace(Tasks.prototype.step, { key: replaced.key })('new');
    assert.equal(await docket.client.clear(), 2);
    assert.equal((await docket.client.getExecution(cleared.key))?.state, 'cancelled');
    assert.deepEqual(await docket.inspector.counts(), {
      running: 0,
      queued: 0,
      scheduled: 0,
      held: 0,
    });
    // the replacement was cleared too; a fresh add runs once resumed
    await docket.client.add(Tasks.prototype.step)('fresh');
    await docket.client.resume();
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.started, ['fresh']);
  });

  it('gives back the concurrency slot of work held when its turn came', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { concurrency: 4 } });
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.perAccount)('acme', 'first');
    void docket.worker.runForever();
    await waitFor(() => tasks.started.includes('first'), 'the first task started');
    const waiting = await docket.client.add(Tasks.prototype.perAccount)('acme', 'second');
    await waitFor(() => waitsInLine(docket, waiting.key, 1), 'the second task waits for the slot');
    await docket.client.pause('perAccount');
    tasks.gate.resolve();
    // its turn comes while paused: it is held, and the slot is free again
    await waitFor(async () => (await docket.inspector.counts()).held === 1, 'the second is held');
    assert.deepEqual(tasks.started, ['first']);
    await docket.client.resume('perAccount');
    const execution = (await docket.client.getExecution(waiting.key))!;
    await execution.result({ timeout: 10_000 });
    assert.deepEqual(tasks.started, ['first', 'second']);
    assert.equal(execution.state, 'completed');
  });

  it('refuses "*" as a task name', async (t) => {
    const docket = await useDocket(t, [Tasks], ONE);
    await assert.rejects(docket.client.pause('*'), /"\*" is not a task name/);
    await assert.rejects(docket.client.resume(''), /task/);
  });
});
