import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask, ExecutionCancelledError } from '../../lib/index.js';
import { deferred, places, useDocket, waitFor, waitsInLine } from '../utils.js';

@Injectable()
class Tasks {
  calls: string[] = [];
  started = deferred();
  gate = deferred();

  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value;
  }

  @DocketTask({ concurrency: { max: 1 } })
  async single(value: string): Promise<string> {
    this.calls.push(value);
    this.started.resolve();
    await this.gate.promise;
    return value;
  }

  @DocketTask('jobs.hold')
  async hold(value: string): Promise<string> {
    this.calls.push(value);
    this.started.resolve();
    await this.gate.promise;
    return value;
  }
}

const BUILTIN = ['fail', 'sleep', 'trace'];

describe('workers', { timeout: 60_000 }, () => {
  it('workers() and taskWorkers() show a running worker with its tasks', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      heartbeatInterval: 200,
      worker: { name: 'registry-worker', minimumCheckInterval: 100 },
    });
    assert.deepEqual(await docket.client.workers(), []);
    const before = Date.now();
    void docket.worker.runForever();
    const [worker] = await waitFor(async () => {
      const list = await docket.client.workers();
      return list.length > 0 && list;
    }, 'the worker to beat');
    assert.equal(worker.name, 'registry-worker');
    assert.ok(worker.lastSeen.getTime() >= before - 5);
    assert.deepEqual(worker.tasks, [...BUILTIN, 'jobs.hold', 'record', 'single'].sort());
    assert.deepEqual(
      (await docket.client.taskWorkers('jobs.hold')).map((w) => w.name),
      ['registry-worker'],
    );
    assert.deepEqual(await docket.client.taskWorkers('no.such.task'), []);
  });

  it('a worker that stopped is no longer listed', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { name: 'short-lived', minimumCheckInterval: 100 },
    });
    const observer = await useDocket(t, [], { name: docket.name, worker: false });
    await docket.client.add(Tasks.prototype.record)('x');
    await docket.worker.runUntilFinished();
    assert.deepEqual(await observer.client.workers(), []);
    assert.deepEqual(await observer.client.taskWorkers('record'), []);
  });

  it('taskWorkers() keeps showing a live worker between task registrations', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      // a window of 400 ms: wide enough that a loaded machine's late beat is not a death
      heartbeatInterval: 100,
      missedHeartbeats: 4,
      worker: { name: 'steady', minimumCheckInterval: 100 },
    });
    const started = Date.now();
    void docket.worker.runForever();
    // Wait (on the registry itself) until four liveness windows have passed.
    await waitFor(
      async () => {
        const [worker] = await docket.client.workers();
        return worker && worker.lastSeen.getTime() >= started + 1_600;
      },
      'the worker to beat for 1 600 ms',
      10_000,
    );
    assert.deepEqual(
      (await docket.client.workers()).map((w) => w.name),
      ['steady'],
    );
    assert.deepEqual(
      (await docket.client.taskWorkers('record')).map((w) => w.name),
      ['steady'],
    );
  });
});

describe('snapshot and clear', { timeout: 60_000 }, () => {
  it('snapshot() shows running and future tasks; clear() removes the waiting ones only', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      heartbeatInterval: 200,
      worker: { name: 'snap', concurrency: 1, minimumCheckInterval: 100 },
    });
    const tasks = docket.module.get(Tasks);
    t.after(() => tasks.gate.resolve());
    const running = await docket.client.add(Tasks.prototype.hold, { key: 'running' })('r');
    void docket.worker.runForever();
    await tasks.started.promise;
    // The one slot is taken: this one stays queued in the stream.
    const queued = await docket.client.add(Tasks.prototype.record, { key: 'queued' })('q');
    const future = await docket.client.add(Tasks.prototype.record, {
      key: 'future',
      delay: 60_000,
    })('f');

    const snapshot = await docket.client.snapshot();
    assert.ok(snapshot.takenAt instanceof Date);
    assert.equal(snapshot.totalTasks, 3);
    assert.equal(snapshot.running.length, 1);
    const [run] = snapshot.running;
    assert.equal(run.key, 'running');
    assert.equal(run.taskName, 'jobs.hold');
    assert.deepEqual(run.args, ['r']);
    assert.equal(run.worker, 'snap');
    assert.ok(run.startedAt.getTime() >= running.when.getTime());
    assert.deepEqual(
      snapshot.future.map((f) => [f.key, f.taskName, f.args, f.when.getTime()]),
      [
        ['queued', 'record', ['q'], queued.when.getTime()],
        ['future', 'record', ['f'], future.when.getTime()],
      ],
    );
    assert.deepEqual(
      snapshot.workers.map((w) => w.name),
      ['snap'],
    );

    assert.equal(await docket.client.clear(), 2);
    await assert.rejects(queued.result({ timeout: 2_000 }), ExecutionCancelledError);
    await assert.rejects(future.result({ timeout: 2_000 }), ExecutionCancelledError);
    assert.equal((await docket.client.getExecution('running'))?.state, 'running');
    // the queue is empty; the stream holds the running task's message only
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 1 });
    const after = await docket.client.snapshot();
    assert.deepEqual(
      after.running.map((r) => r.key),
      ['running'],
    );
    assert.deepEqual(after.future, []);

    tasks.gate.resolve();
    assert.equal(await running.result({ timeout: 5_000 }), 'r');
    assert.deepEqual(tasks.calls, ['r']);
    assert.equal(await docket.client.clear(), 0);
  });

  it('clear() also removes a task waiting for a concurrency slot', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { minimumCheckInterval: 100, shutdownTimeout: 300 },
    });
    const tasks = docket.module.get(Tasks);
    t.after(() => tasks.gate.resolve());
    const first = await docket.client.add(Tasks.prototype.single, { key: 'holder' })('first');
    void docket.worker.runForever();
    await tasks.started.promise;
    await docket.client.add(Tasks.prototype.single, { key: 'waiter' })('second');
    await waitFor(() => waitsInLine(docket, 'waiter', 1), 'the second task to wait for the slot');
    assert.equal(await docket.client.clear(), 1);
    assert.equal((await docket.client.getExecution('waiter'))?.state, 'cancelled');
    tasks.gate.resolve();
    assert.equal(await first.result({ timeout: 5_000 }), 'first');
    await waitFor(() => docket.worker.activeTasks === 0, 'the worker to be idle');
    assert.deepEqual(tasks.calls, ['first']);
  });

  it('snapshot() counts a task waiting for a concurrency slot as future', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { minimumCheckInterval: 100, shutdownTimeout: 300 },
    });
    const tasks = docket.module.get(Tasks);
    t.after(() => tasks.gate.resolve());
    await docket.client.add(Tasks.prototype.single, { key: 'holder' })('first');
    void docket.worker.runForever();
    await tasks.started.promise;
    await docket.client.add(Tasks.prototype.single, { key: 'waiter' })('second');
    await waitFor(() => waitsInLine(docket, 'waiter', 1), 'the second task to wait for the slot');
    const snapshot = await docket.client.snapshot();
    assert.deepEqual(
      snapshot.running.map((r) => r.key),
      ['holder'],
    );
    assert.deepEqual(
      snapshot.future.map((f) => f.key),
      ['waiter'],
    );
    assert.equal(snapshot.totalTasks, 2);
  });
});
