import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { deferred, places, readModel, useDocket, waitFor } from '../utils.js';

interface Start {
  value: string;
  key: string;
  when: number;
  startedAt: number;
}

@Injectable()
class Tasks {
  starts: Start[] = [];
  gate?: Promise<void>;
  started?: () => void;

  @DocketTask()
  async stamp(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    const startedAt = Date.now();
    this.starts.push({ value, key: ctx.key, when: ctx.execution.when.getTime(), startedAt });
    return value;
  }

  @DocketTask()
  async gated(value: string): Promise<string> {
    this.starts.push({ value, key: '', when: 0, startedAt: Date.now() });
    this.started?.();
    await this.gate;
    return value;
  }
}

const FAST = { worker: { minimumCheckInterval: 100 } };

describe('future tasks', { timeout: 60_000 }, () => {
  it('never start before "delay" is over and start promptly after', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const before = Date.now();
    const execution = await docket.client.add(Tasks.prototype.stamp, { delay: 400 })('d');
    assert.equal(execution.state, 'scheduled');
    assert.ok(execution.when.getTime() >= before + 400);
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'd');
    const [start] = tasks.starts;
    assert.equal(start.when, execution.when.getTime());
    assert.ok(start.startedAt >= start.when, `started ${start.when - start.startedAt}ms early`);
    assert.ok(
      start.startedAt - start.when < 1_500,
      `started ${start.startedAt - start.when}ms late`,
    );
  });

  it('never start before "when" and start promptly after, in the order of their times', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const now = Date.now();
    const add = (value: string, ms: number) =>
      docket.client.add(Tasks.prototype.stamp, { when: new Date(now + ms) })(value);
    const c = await add('c', 700);
    const a = await add('a', 250);
    const b = await add('b', 450);
    const worker = docket.worker.runUntilFinished();
    await Promise.all([a, b, c].map((e) => e.result({ timeout: 5_000 })));
    await worker;
    assert.deepEqual(
      tasks.starts.map((s) => s.value),
      ['a', 'b', 'c'],
    );
    for (const [start, ms] of tasks.starts.map((s, i) => [s, [250, 450, 700][i]] as const)) {
      assert.equal(start.when, now + ms);
      assert.ok(
        start.startedAt >= start.when,
        `${start.value} started ${start.when - start.startedAt}ms early`,
      );
      assert.ok(
        start.startedAt - start.when < 1_500,
        `${start.value} started ${start.startedAt - start.when}ms late`,
      );
    }
  });

  it('wake the sleeping scheduler when an earlier task is added', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    void docket.worker.runForever();
    await waitFor(() => docket.worker.status().lastPollAt > 0, 'the worker to poll');
    await docket.client.add(Tasks.prototype.stamp, { key: 'late', delay: 10_000 })('late');
    // Let the scheduler plan its sleep until the late task before the early one arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const added = Date.now();
    const early = await docket.client.add(Tasks.prototype.stamp, { key: 'early', delay: 200 })(
      'early',
    );
    assert.equal(await early.result({ timeout: 5_000 }), 'early');
    const [start] = tasks.starts;
    assert.equal(start.value, 'early');
    assert.ok(start.startedAt >= start.when);
    assert.ok(start.startedAt - added < 1_500, `ran ${start.startedAt - added}ms after the add`);
    assert.equal((await docket.client.getExecution('late'))?.state, 'scheduled');
  });

  it('run at once when "when" is in the past', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.stamp, {
      when: new Date(Date.now() - 60_000),
    })('past');
    assert.equal(execution.state, 'queued');
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'past');
  });
});

describe('replace', { timeout: 60_000 }, () => {
  it('of a scheduled task: the new arguments and time win, the old never runs', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const old = await docket.client.add(Tasks.prototype.stamp, { key: 'r', delay: 60_000 })('old');
    assert.equal(old.state, 'scheduled');
    const replaced = await docket.client.replace(Tasks.prototype.stamp, { key: 'r', delay: 500 })(
      'new',
    );
    assert.equal(replaced.disposition, 'scheduled');
    assert.equal(replaced.state, 'scheduled');
    assert.ok(replaced.when.getTime() < old.when.getTime());
    // one future task, with the new arguments and time (test/contract/future-tasks checks its
    // queue score and parked message)
    assert.deepEqual(await places(docket), { queue: 0, schedule: 1, running: 0 });
    const { future } = await docket.inspector.snapshot();
    assert.deepEqual(
      future.map((f) => [f.key, f.args, f.when.getTime()]),
      [['r', ['new'], replaced.when.getTime()]],
    );
    await docket.worker.runUntilFinished();
    assert.deepEqual(
      tasks.starts.map((s) => s.value),
      ['new'],
    );
    assert.ok(tasks.starts[0].startedAt >= replaced.when.getTime());
    assert.equal(await replaced.result({ timeout: 2_000 }), 'new');
  });

  it('of a queued task: only the new message stays in the stream', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.stamp, { key: 'q' })('old');
    const replaced = await docket.client.replace(Tasks.prototype.stamp, { key: 'q' })('new');
    assert.equal(replaced.disposition, 'scheduled');
    assert.equal(replaced.state, 'queued');
    // one message on the stream, of the new arguments (test/contract/wire-format checks the entry)
    assert.deepEqual(await places(docket), { queue: 1, schedule: 0, running: 0 });
    const { future } = await docket.inspector.snapshot();
    assert.deepEqual(
      future.map((f) => [f.key, f.args]),
      [['q', ['new']]],
    );
    await docket.worker.runUntilFinished();
    assert.deepEqual(
      tasks.starts.map((s) => s.value),
      ['new'],
    );
  });

  it('of a future task with a due one moves it from the queue to the stream', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.stamp, { key: 'f', delay: 60_000 })('later');
    const replaced = await docket.client.replace(Tasks.prototype.stamp, { key: 'f' })('now');
    assert.equal(replaced.state, 'queued');
    // nothing in the queue any more: one message on the stream (test/contract/future-tasks checks
    // that the queue and the parked message are empty)
    assert.equal((await docket.client.getExecution('f'))?.state, 'queued');
    assert.deepEqual(await places(docket), { queue: 1, schedule: 0, running: 0 });
    assert.equal((await docket.inspector.snapshot()).totalTasks, 1);
    await docket.worker.runUntilFinished();
    assert.deepEqual(
      tasks.starts.map((s) => s.value),
      ['now'],
    );
  });

  it('of a key that does not exist acts as add', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.replace('stamp', { key: 'fresh' })('v');
    assert.equal(execution.disposition, 'scheduled');
    assert.equal(execution.state, 'queued');
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'v');
  });

  it('of a running task: its stale completion does not overwrite the successor', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const gate = deferred();
    const started = deferred();
    tasks.gate = gate.promise;
    tasks.started = started.resolve;
    t.after(() => gate.resolve());
    await docket.client.add(Tasks.prototype.gated, { key: 'g' })('first');
    void docket.worker.runForever();
    await started.promise;
    const successor = await docket.client.replace(Tasks.prototype.gated, {
      key: 'g',
      delay: 60_000,
    })('second');
    assert.equal(successor.state, 'scheduled');
    gate.resolve();
    await waitFor(() => docket.worker.activeTasks === 0, 'the first run to end');
    const runs = await docket.client.getExecution('g');
    assert.equal(runs?.state, 'scheduled');
    assert.equal(runs?.generation, successor.generation);
    assert.deepEqual(runs?.args, ['second']);
    assert.equal(runs?.completedAt, undefined);
    assert.deepEqual(
      tasks.starts.map((s) => s.value),
      ['first'],
    );
  });

  it('of a running task by a due one: the old run ending last does not overwrite the new result', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 2, minimumCheckInterval: 100 },
    });
    const tasks = docket.module.get(Tasks);
    const gate = deferred();
    const started = deferred();
    tasks.gate = gate.promise;
    tasks.started = started.resolve;
    t.after(() => gate.resolve());
    const first = await docket.client.add(Tasks.prototype.gated, { key: 'o' })('first');
    void docket.worker.runForever();
    await started.promise;
    tasks.gate = undefined;
    tasks.started = undefined;
    const second = await docket.client.replace(Tasks.prototype.gated, { key: 'o' })('second');
    assert.equal(await second.result({ timeout: 5_000 }), 'second');
    const before = await readModel(docket.client, 'o');
    gate.resolve();
    await waitFor(() => docket.worker.activeTasks === 0, 'the first run to end');
    // (test/contract/execution-records checks every field of its record, internal ones too)
    assert.deepEqual(await readModel(docket.client, 'o'), before);
    assert.equal(
      await (await docket.client.getExecution('o'))?.result({ timeout: 1_000 }),
      'second',
    );
    assert.equal(await first.result({ timeout: 1_000 }), 'second');
    assert.deepEqual(
      tasks.starts.map((s) => s.value),
      ['first', 'second'],
    );
  });
});
