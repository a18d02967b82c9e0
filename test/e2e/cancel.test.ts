import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketTask,
  ExecutionCancelledError,
  SchedulerService,
  type TaskContext,
} from '../../lib/index.js';
import { deferred, places, readModel, useDocket, waitFor, type TestDocket } from '../utils.js';

@Injectable()
class Tasks {
  calls: string[] = [];
  started = deferred();
  aborted?: AbortSignal;

  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value;
  }

  /** Waits for its signal and fails with the abort reason. */
  @DocketTask({ retry: { attempts: 3 } })
  async obedient(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.calls.push(value);
    this.aborted = ctx.signal;
    this.started.resolve();
    await new Promise((_, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error));
    });
    return 'unreachable';
  }

  /** Notices the abort but finishes normally. */
  @DocketTask()
  async stubborn(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.calls.push(value);
    this.aborted = ctx.signal;
    this.started.resolve();
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    return `${value} done anyway`;
  }
}

const FAST = { worker: { minimumCheckInterval: 100 } };

/** The state of `key` in the read model. */
async function stateOf(docket: TestDocket, key: string) {
  return (await docket.client.getExecution(key))?.state;
}

describe('cancel', { timeout: 60_000 }, () => {
  it('of a scheduled task: it never runs and ends cancelled', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.record, {
      key: 's',
      delay: 300,
    })('x');
    await docket.client.cancel('s');
    await assert.rejects(execution.result({ timeout: 2_000 }), ExecutionCancelledError);
    assert.equal(execution.state, 'cancelled');
    // it left the queue (test/contract/future-tasks checks that its parked record went too)
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
    assert.equal((await docket.inspector.snapshot()).totalTasks, 0);
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, []);
    const after = await docket.client.getExecution('s');
    assert.equal(after?.state, 'cancelled');
    assert.ok(after?.completedAt instanceof Date);
  });

  it('of a due task no worker has read yet: its message leaves the stream', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.record, { key: 'q' })('x');
    assert.equal(execution.state, 'queued');
    assert.deepEqual(await places(docket), { queue: 1, schedule: 0, running: 0 });
    await docket.client.cancel('q');
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
    assert.equal(await stateOf(docket, 'q'), 'cancelled');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, []);
    await assert.rejects(execution.result({ timeout: 2_000 }), ExecutionCancelledError);
  });

  it('of a future task after the scheduler moved it to the stream', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const scheduler = docket.module.get(SchedulerService);
    await docket.client.add(Tasks.prototype.record, { key: 'm', delay: 400 })('x');
    assert.equal(await stateOf(docket, 'm'), 'scheduled');
    await waitFor(async () => {
      await scheduler.moveDue();
      return (await stateOf(docket, 'm')) === 'queued';
    }, 'the scheduler to move the task');
    assert.deepEqual(await places(docket), { queue: 1, schedule: 0, running: 0 });
    await docket.client.cancel('m');
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
    assert.equal(await stateOf(docket, 'm'), 'cancelled');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, []);
  });

  it('of a running task aborts its signal; a handler that throws ends cancelled, never retried', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.obedient, { key: 'r' })('x');
    const worker = docket.worker.runUntilFinished();
    await tasks.started.promise;
    assert.equal(tasks.aborted?.aborted, false);
    await docket.client.cancel('r');
    await assert.rejects(execution.result({ timeout: 5_000 }), (error: Error) => {
      assert.ok(error instanceof ExecutionCancelledError);
      assert.equal(error.name, 'ExecutionCancelledError');
      return true;
    });
    await worker;
    assert.equal(tasks.aborted?.aborted, true);
    assert.deepEqual(tasks.calls, ['x']);
    const runs = await docket.client.getExecution('r');
    assert.equal(runs?.state, 'cancelled');
    assert.equal(runs?.attempt, 1);
    // nothing read and unacknowledged, nothing left on the stream or in the queue
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
  });

  it('of a running task whose handler ignores the abort and returns: cancelled, its result discarded', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.stubborn, { key: 'i' })('x');
    const worker = docket.worker.runUntilFinished();
    await tasks.started.promise;
    assert.equal(await docket.client.cancel('i'), 'cancelled');
    await assert.rejects(execution.result({ timeout: 5_000 }), ExecutionCancelledError);
    await worker;
    assert.equal(tasks.aborted?.aborted, true);
    assert.equal(execution.state, 'cancelled');
    assert.equal(await stateOf(docket, 'i'), 'cancelled');
    assert.equal(await docket.client.cancel('i'), 'finished');
  });

  it('of the built-in sleep, which stops on its signal and returns: cancelled', async (t) => {
    const docket = await useDocket(t, [], FAST);
    const execution = await docket.client.add('sleep', { key: 's' })(60);
    const worker = docket.worker.runUntilFinished();
    await waitFor(async () => (await stateOf(docket, 's')) === 'running', 'sleep to run');
    assert.equal(await docket.client.cancel('s'), 'cancelled');
    await assert.rejects(execution.result({ timeout: 5_000 }), ExecutionCancelledError);
    await worker;
    assert.equal(await stateOf(docket, 's'), 'cancelled');
  });

  it('of a finished task changes nothing', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.record, { key: 'done' })('x');
    await docket.worker.runUntilFinished();
    const before = await readModel(docket.client, 'done');
    assert.equal(before.state, 'completed');
    await docket.client.cancel('done');
    // (test/contract/execution-records checks every field of its record, internal ones too)
    assert.deepEqual(await readModel(docket.client, 'done'), before);
    assert.equal(await execution.result({ timeout: 2_000 }), 'x');
  });

  it('twice is harmless, for a queued and for a running task', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const events: string[] = [];
    const queued = await docket.client.add(Tasks.prototype.record, { key: 'twice' })('x');
    const iterator = queued.subscribe()[Symbol.asyncIterator]();
    const collecting = (async () => {
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
        if (r.value.type === 'state') events.push(r.value.state);
      }
    })();
    await docket.client.cancel('twice');
    const cancelledAt = (await docket.client.getExecution('twice'))?.completedAt;
    assert.ok(cancelledAt instanceof Date);
    await docket.client.cancel('twice');
    await collecting;
    assert.deepEqual((await docket.client.getExecution('twice'))?.completedAt, cancelledAt);
    assert.equal(events.at(-1), 'cancelled');
    assert.equal(events.filter((s) => s === 'cancelled').length, 1);

    const running = await docket.client.add(Tasks.prototype.obedient, { key: 'run2' })('y');
    const worker = docket.worker.runUntilFinished();
    await tasks.started.promise;
    await docket.client.cancel('run2');
    await docket.client.cancel('run2');
    await assert.rejects(running.result({ timeout: 5_000 }), ExecutionCancelledError);
    await worker;
    await docket.client.cancel('run2');
    assert.equal(await stateOf(docket, 'run2'), 'cancelled');
    assert.deepEqual(tasks.calls, ['y']);
  });

  it('of an unknown key writes nothing', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await docket.client.cancel('never-added');
    // (test/contract/key-lifetimes checks that no key was written)
    assert.equal(await docket.client.getExecution('never-added'), null);
    assert.equal((await docket.inspector.snapshot()).totalTasks, 0);
  });
});
