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
import {
  assertNoKeyWithoutTtl,
  deferred,
  docketKeys,
  pendingCount,
  rawRedis,
  runsHash,
  useDocket,
  waitFor,
} from '../utils.js';

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

async function streamLength(name: string): Promise<number> {
  const redis = rawRedis();
  try {
    return await redis.xlen(`{${name}}:stream`);
  } finally {
    redis.disconnect();
  }
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
    const redis = rawRedis();
    try {
      assert.equal(await redis.zcard(`{${docket.name}}:queue`), 0);
      assert.equal(await redis.exists(`{${docket.name}}:parked:s`), 0);
    } finally {
      redis.disconnect();
    }
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, []);
    const after = await docket.client.getExecution('s');
    assert.equal(after?.state, 'cancelled');
    assert.ok(after?.completedAt instanceof Date);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('of a due task no worker has read yet: its message leaves the stream', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.record, { key: 'q' })('x');
    assert.equal(execution.state, 'queued');
    assert.equal(await streamLength(docket.name), 1);
    await docket.client.cancel('q');
    assert.equal(await streamLength(docket.name), 0);
    assert.equal((await runsHash(docket.name, 'q')).state, 'cancelled');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, []);
    await assert.rejects(execution.result({ timeout: 2_000 }), ExecutionCancelledError);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('of a future task after the scheduler moved it to the stream', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const scheduler = docket.module.get(SchedulerService);
    await docket.client.add(Tasks.prototype.record, { key: 'm', delay: 400 })('x');
    assert.equal((await runsHash(docket.name, 'm')).state, 'scheduled');
    await waitFor(async () => {
      await scheduler.moveDue();
      return (await runsHash(docket.name, 'm')).state === 'queued';
    }, 'the scheduler to move the task');
    assert.equal(await streamLength(docket.name), 1);
    await docket.client.cancel('m');
    assert.equal(await streamLength(docket.name), 0);
    assert.equal((await runsHash(docket.name, 'm')).state, 'cancelled');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, []);
    await assertNoKeyWithoutTtl(docket.name);
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
    const runs = await runsHash(docket.name, 'r');
    assert.equal(runs.state, 'cancelled');
    assert.equal(runs.attempt, '1');
    assert.equal(await pendingCount(docket.name), 0);
    assert.equal(await streamLength(docket.name), 0);
    await assertNoKeyWithoutTtl(docket.name);
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
    assert.equal((await runsHash(docket.name, 'i')).state, 'cancelled');
    assert.equal(await docket.client.cancel('i'), 'finished');
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('of a finished task changes nothing', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.record, { key: 'done' })('x');
    await docket.worker.runUntilFinished();
    const before = await runsHash(docket.name, 'done');
    assert.equal(before.state, 'completed');
    await docket.client.cancel('done');
    assert.deepEqual(await runsHash(docket.name, 'done'), before);
    assert.equal(await execution.result({ timeout: 2_000 }), 'x');
    await assertNoKeyWithoutTtl(docket.name);
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
    const cancelledAt = (await runsHash(docket.name, 'twice')).completedAt;
    await docket.client.cancel('twice');
    await collecting;
    assert.equal((await runsHash(docket.name, 'twice')).completedAt, cancelledAt);
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
    assert.equal((await runsHash(docket.name, 'run2')).state, 'cancelled');
    assert.deepEqual(tasks.calls, ['y']);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('of an unknown key writes nothing', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await docket.client.cancel('never-added');
    assert.deepEqual(await docketKeys(docket.name), []);
  });
});
