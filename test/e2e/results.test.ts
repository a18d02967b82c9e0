import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketTask,
  TimeoutError,
  type ExecutionEvent,
  type Execution,
  type TaskContext,
} from '../../lib/index.js';
import { useDocket, waitFor } from '../utils.js';

class MyError extends Error {
  override name = 'MyError';
}

interface Payload {
  at: Date;
  big: bigint;
  map: Map<string, unknown>;
  set: Set<unknown>;
  buffer: Buffer;
  nothing: undefined;
  nested: { list: unknown[]; deeper: { when: Date; n: bigint } };
}

function payload(): Payload {
  return {
    at: new Date('2030-01-02T03:04:05.678Z'),
    big: 2n ** 70n,
    map: new Map<string, unknown>([
      ['a', 1],
      ['b', new Set([new Date(5)])],
    ]),
    set: new Set(['x', 2, null]),
    buffer: Buffer.from('héllo wörld'),
    nothing: undefined,
    nested: { list: [undefined, 1, 'two', [3n]], deeper: { when: new Date(0), n: -7n } },
  };
}

@Injectable()
class Tasks {
  received: unknown[] = [];

  @DocketTask()
  async echo(value: Payload, extra: undefined, tail: bigint): Promise<unknown> {
    this.received.push(value, extra, tail);
    return { value, extra, tail, types: [value.map instanceof Map, Buffer.isBuffer(value.buffer)] };
  }

  @DocketTask()
  async nothing(): Promise<void> {}

  @DocketTask()
  async raise(message: string): Promise<never> {
    throw new MyError(message);
  }

  @DocketTask()
  async broken(message: string): Promise<never> {
    throw new Error(message);
  }

  @DocketTask()
  async report(@Ctx() ctx: TaskContext): Promise<string> {
    await ctx.progress.setTotal(3);
    await ctx.progress.increment();
    await ctx.progress.increment();
    await ctx.progress.setMessage('almost');
    await ctx.progress.increment();
    return 'reported';
  }
}

const FAST = { worker: { minimumCheckInterval: 100 } };

/**
 * Subscribe and take the first (current) event before anything else happens; `collected` ends
 * with the subscription.
 */
async function subscribeNow(
  execution: Execution,
): Promise<{ collected: Promise<ExecutionEvent[]> }> {
  const iterator = execution.subscribe()[Symbol.asyncIterator]();
  const events: ExecutionEvent[] = [];
  const first = await iterator.next();
  if (!first.done) events.push(first.value);
  const collected = (async () => {
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) events.push(r.value);
    return events;
  })();
  return { collected };
}

describe('results and events', { timeout: 30_000 }, () => {
  it('round-trip Date, BigInt, Map, Set, Buffer, undefined and nested objects', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.echo)(payload(), undefined, 42n);
    await docket.worker.runUntilFinished();
    const result = await execution.result<Record<string, unknown>>({ timeout: 2_000 });
    assert.deepEqual(tasks.received, [payload(), undefined, 42n]);
    assert.deepEqual(result, {
      value: payload(),
      extra: undefined,
      tail: 42n,
      types: [true, true],
    });
    assert.ok(Object.hasOwn(result, 'extra'));
    const value = result.value as Payload;
    assert.ok(value.at instanceof Date);
    assert.ok(value.map instanceof Map);
    assert.ok(value.set instanceof Set);
    assert.ok(Buffer.isBuffer(value.buffer));
    assert.equal(typeof value.big, 'bigint');
  });

  it('give undefined for a task that returns nothing', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.nothing)();
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), undefined);
    assert.equal(execution.state, 'completed');
  });

  it('rebuild a thrown custom error with its name and message', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.raise)('it went wrong: badly');
    await docket.worker.runUntilFinished();
    await assert.rejects(execution.result({ timeout: 2_000 }), (error: Error) => {
      assert.ok(error instanceof Error);
      assert.equal(error.name, 'MyError');
      assert.equal(error.message, 'it went wrong: badly');
      return true;
    });
    assert.equal(execution.state, 'failed');
    assert.equal(execution.error, 'MyError: it went wrong: badly');
  });

  it('show state, worker and times through getExecution after completion', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { name: 'results-worker' } });
    const added = await docket.client.add(Tasks.prototype.nothing, { key: 'seen' })();
    await docket.worker.runUntilFinished();
    const execution = await docket.client.getExecution('seen');
    assert.ok(execution);
    assert.equal(execution.key, 'seen');
    assert.equal(execution.taskName, 'nothing');
    assert.deepEqual(execution.args, []);
    assert.equal(execution.state, 'completed');
    assert.equal(execution.worker, 'results-worker');
    assert.equal(execution.attempt, 1);
    assert.ok(execution.startedAt instanceof Date);
    assert.ok(execution.completedAt instanceof Date);
    assert.ok(execution.startedAt.getTime() >= added.when.getTime());
    assert.ok(execution.completedAt.getTime() >= execution.startedAt.getTime());
    assert.equal(execution.error, undefined);
    assert.equal(await docket.client.getExecution('no-such-key'), null);
  });

  it('arrive through subscribe() as queued → running → completed, with progress in order', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { name: 'sub-worker' } });
    const execution = await docket.client.add(Tasks.prototype.report)();
    const { collected } = await subscribeNow(execution);
    await docket.worker.runUntilFinished();
    const events = await collected;
    assert.deepEqual(
      events.filter((e) => e.type === 'state').map((e) => e.state),
      ['queued', 'running', 'completed'],
    );
    const running = events.find((e) => e.type === 'state' && e.state === 'running');
    assert.equal(running?.type === 'state' && running.worker, 'sub-worker');
    const progress = events
      .filter((e) => e.type === 'progress')
      .map((e) => [e.current, e.total, e.message]);
    assert.deepEqual(progress, [
      [null, null, null],
      [0, 3, null],
      [1, 3, null],
      [2, 3, null],
      [2, 3, 'almost'],
      [3, 3, 'almost'],
    ]);
    const completedAt = events.findIndex((e) => e.type === 'state' && e.state === 'completed');
    assert.equal(completedAt, events.length - 1, 'the terminal state is the last event');
    assert.equal(execution.state, 'completed');
    assert.deepEqual(execution.progress.current, 3);
  });

  it('of a failing task end with failed and the error "Error: <message>"', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.broken)('no luck');
    const { collected } = await subscribeNow(execution);
    await docket.worker.runUntilFinished();
    const states = (await collected).filter((e) => e.type === 'state');
    assert.deepEqual(
      states.map((e) => e.state),
      ['queued', 'running', 'failed'],
    );
    assert.equal(states.at(-1)?.error, 'Error: no luck');
    assert.ok(states.at(-1)?.completedAt instanceof Date);
  });

  it('of a finished execution: subscribe() gives the final state and ends', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.nothing)();
    await docket.worker.runUntilFinished();
    const events: ExecutionEvent[] = [];
    for await (const event of execution.subscribe()) events.push(event);
    assert.deepEqual(
      events.map((e) => e.type === 'state' && e.state),
      ['completed', false],
    );
  });
});

describe('waiting for a result', { timeout: 30_000 }, () => {
  it('result() rejects with TimeoutError when timeout or deadline passes first', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.nothing, { key: 'w' })();
    let started = Date.now();
    await assert.rejects(execution.result({ timeout: 150 }), (error: Error) => {
      assert.ok(error instanceof TimeoutError);
      assert.equal(error.name, 'TimeoutError');
      return true;
    });
    let waited = Date.now() - started;
    assert.ok(waited >= 145 && waited < 3_000, `waited ${waited}ms`);
    started = Date.now();
    await assert.rejects(execution.result({ deadline: new Date(Date.now() + 150) }), TimeoutError);
    waited = Date.now() - started;
    assert.ok(waited >= 145 && waited < 3_000, `waited ${waited}ms`);
    await assert.rejects(execution.result({ deadline: new Date(Date.now() - 1) }), TimeoutError);
    assert.equal(execution.state, 'queued');
    // The execution itself is untouched and still runs.
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), undefined);
  });

  it('sync() refreshes the execution in place', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { name: 'syncer' } });
    const execution = await docket.client.add(Tasks.prototype.report, { key: 'sy' })();
    assert.equal(execution.state, 'queued');
    await docket.worker.runUntilFinished();
    assert.equal(execution.state, 'queued', 'the object changes only through sync()');
    assert.equal(await execution.sync(), true);
    assert.equal(execution.state, 'completed');
    assert.equal(execution.worker, 'syncer');
    assert.ok(execution.completedAt instanceof Date);
    assert.deepEqual(
      [execution.progress.current, execution.progress.total, execution.progress.message],
      [3, 3, 'almost'],
    );
    assert.ok(execution.progress.updatedAt instanceof Date);
  });

  it("types result() with the handler's return type for a task added by reference", async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const execution = await docket.client.add(Tasks.prototype.report)();
    await docket.worker.runUntilFinished();
    // compile-time: `string`, not `unknown` (a `number` here would not compile)
    const result: string = await execution.result({ timeout: 2_000 });
    assert.equal(result.toUpperCase(), 'REPORTED');
    const byName = await docket.client.add('report')();
    await docket.worker.runUntilFinished();
    const unknownResult: unknown = await byName.result({ timeout: 2_000 });
    assert.equal(unknownResult, 'reported');
  });
});

describe('executionTtl: 0', { timeout: 30_000 }, () => {
  it('keeps no state, result or progress once executions end', async (t) => {
    const docket = await useDocket(t, [Tasks], { ...FAST, executionTtl: 0 });
    const done = await docket.client.add(Tasks.prototype.report, { key: 'done' })();
    await docket.client.add(Tasks.prototype.broken, { key: 'failed' })('x');
    await docket.client.add(Tasks.prototype.echo, { key: 'cancelled', delay: 60_000 })(
      payload(),
      undefined,
      1n,
    );
    await docket.client.cancel('cancelled');
    await docket.worker.runUntilFinished();
    // (test/contract/key-lifetimes checks that no key of an execution is left)
    for (const key of ['done', 'failed', 'cancelled']) {
      assert.equal(await docket.client.getExecution(key), null, key);
    }
    assert.deepEqual(await docket.inspector.progress(['done']), [
      { current: null, total: null, message: null, updatedAt: null },
    ]);
    assert.equal((await docket.inspector.snapshot()).totalTasks, 0);
    await assert.rejects(done.result({ timeout: 1_000 }), /unknown to Redis/);
  });
});

describe('executionTtl', { timeout: 30_000 }, () => {
  it('keeps state, result and progress of a finished execution for executionTtl, then forgets them', async (t) => {
    const docket = await useDocket(t, [Tasks], { ...FAST, executionTtl: 600 });
    const execution = await docket.client.add(Tasks.prototype.report, { key: 'ttl' })();
    await docket.worker.runUntilFinished();
    const completedAt = Date.now();
    assert.equal(await execution.result({ timeout: 2_000 }), 'reported');
    assert.equal((await docket.inspector.progress(['ttl']))[0].current, 3);
    // (test/contract/key-lifetimes checks the TTL of each key of the execution)
    await waitFor(
      async () => (await docket.client.getExecution('ttl')) === null,
      'the execution to expire',
    );
    assert.ok(Date.now() - completedAt >= 400, 'forgotten long before executionTtl');
    await waitFor(
      async () => (await docket.inspector.progress(['ttl']))[0].updatedAt === null,
      'the progress to expire',
    );
  });
});
