import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { DOCKET_STORE } from '../../lib/docket.tokens.js';
import type { DocketStore } from '../../lib/store/docket-store.js';
import { createDocket, deferred, places, type TestDocket } from '../utils.js';

@Injectable()
class Tasks {
  calls: string[] = [];
  gate?: Promise<void>;
  started?: () => void;

  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value.toUpperCase();
  }

  @DocketTask('tasks.renamed')
  async renamed(value: string): Promise<string> {
    this.calls.push(`renamed:${value}`);
    return value;
  }

  @DocketTask()
  async gated(value: string): Promise<string> {
    this.calls.push(value);
    this.started?.();
    await this.gate;
    return value;
  }
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('add', { timeout: 60_000 }, () => {
  let docket: TestDocket;
  let tasks: Tasks;
  before(async () => {
    docket = await createDocket([Tasks], { worker: { minimumCheckInterval: 100 } });
    tasks = docket.module.get(Tasks);
  });
  after(async () => {
    await docket.close();
  });

  it('runs an added task and keeps its result', async () => {
    const execution = await docket.client.add(Tasks.prototype.record)('a');
    assert.equal(execution.disposition, 'scheduled');
    assert.equal(execution.state, 'queued');
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'A');
    assert.equal(execution.state, 'completed');
  });

  it('adds made together go in few calls and answer each in order, a repeated key included', async (t) => {
    tasks.calls = [];
    const add = (key: string, value: string) =>
      docket.client.add(Tasks.prototype.record, { key })(value);
    const replace = (key: string, value: string) =>
      docket.client.replace(Tasks.prototype.record, { key })(value);
    // the schedule calls the client makes to its store, and how many requests each carries
    const store = docket.module.get<DocketStore>(DOCKET_STORE);
    const calls: number[] = [];
    const schedule = store.schedule.bind(store);
    store.schedule = (requests, now) => {
      calls.push(requests.length);
      return schedule(requests, now);
    };
    t.after(() => {
      store.schedule = schedule;
    });
    // one turn of the event loop: 100 adds (more than one call's worth), a repeat, a replace
    const executions = await Promise.all([
      ...Array.from({ length: 100 }, (_, i) => add(`batch-${i}`, `v${i}`)),
      add('batch-7', 'again'),
      replace('batch-8', 'later'),
    ]);
    assert.deepEqual(
      executions.slice(0, 100).map((e) => [e.key, e.disposition, e.state, e.args[0]]),
      Array.from({ length: 100 }, (_, i) => [`batch-${i}`, 'scheduled', 'queued', `v${i}`]),
    );
    // 102 schedules in one turn: calls of 32, 32, 32 and the 6 left at the end of the turn
    assert.deepEqual(calls, [32, 32, 32, 6]);
    const [again, later] = executions.slice(100);
    assert.equal(again.disposition, 'already_scheduled');
    assert.deepEqual(again.args, ['v7'], 'the live execution answers');
    assert.equal(later.disposition, 'scheduled');
    assert.equal(later.state, 'queued');
    assert.equal(later.generation, 2, 'the replace came after the add of the same turn');
    await docket.worker.runUntilFinished();
    assert.equal(tasks.calls.length, 100);
    assert.ok(tasks.calls.includes('later'), 'the replaced copy ran');
    assert.ok(!tasks.calls.includes('v8'), 'the copy it replaced did not');
    assert.ok(!tasks.calls.includes('again'));
  });

  it('addMany adds each argument list as its own execution, in order', async () => {
    tasks.calls = [];
    const executions = await docket.client.addMany(
      Tasks.prototype.record,
      Array.from({ length: 250 }, (_, i) => [`m${i}`] as [string]),
    );
    assert.equal(executions.length, 250);
    assert.deepEqual(
      executions.map((e) => e.args[0]),
      Array.from({ length: 250 }, (_, i) => `m${i}`),
    );
    assert.equal(new Set(executions.map((e) => e.key)).size, 250);
    assert.ok(executions.every((e) => UUID_V7.test(e.key) && e.disposition === 'scheduled'));
    const later = await docket.client.addMany('record', [['d1'], ['d2']], { delay: 200 });
    assert.ok(later.every((e) => e.state === 'scheduled'));
    await docket.worker.runUntilFinished();
    assert.equal(tasks.calls.length, 252);
    assert.deepEqual(await docket.client.addMany('record', []), []);
    assert.throws(
      () => docket.client.addMany('record', ['x' as unknown as unknown[]]),
      /argsList is an array of argument arrays/,
    );
    assert.throws(
      () => docket.client.addMany('record', [['x']], { key: 'k' } as { delay?: number }),
      /use add\(\) for a known key/,
    );
  });

  it('refuses a live key and frees it after the run', async () => {
    tasks.calls = [];
    const first = await docket.client.add(Tasks.prototype.record, { key: 'k1' })('x');
    const second = await docket.client.add(Tasks.prototype.record, { key: 'k1' })('y');
    assert.equal(first.disposition, 'scheduled');
    assert.equal(second.disposition, 'already_scheduled');
    await docket.worker.runUntilFinished();
    const third = await docket.client.add(Tasks.prototype.record, { key: 'k1' })('z');
    assert.equal(third.disposition, 'scheduled');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, ['x', 'z']);
  });

  it('answers already_scheduled for a scheduled key and changes nothing', async () => {
    const when = new Date(Date.now() + 60_000);
    const first = await docket.client.add(Tasks.prototype.record, { key: 'future', when })('old');
    assert.equal(first.disposition, 'scheduled');
    assert.equal(first.state, 'scheduled');
    const second = await docket.client.add(Tasks.prototype.record, { key: 'future', delay: 5 })(
      'new',
    );
    assert.equal(second.disposition, 'already_scheduled');
    assert.equal(second.state, 'scheduled');
    assert.equal(second.when.getTime(), when.getTime());
    const stored = await docket.client.getExecution('future');
    assert.equal(stored?.state, 'scheduled');
    assert.deepEqual(stored?.args, ['old']);
    assert.equal(stored?.when.getTime(), when.getTime());
    assert.equal(stored?.generation, 1);
    const { future } = await docket.inspector.snapshot();
    assert.deepEqual(
      future.filter((f) => f.key === 'future').map((f) => [f.args, f.when.getTime()]),
      [[['old'], when.getTime()]],
    );
    await docket.client.cancel('future');
  });

  it('answers already_scheduled with the live execution, not the refused one', async () => {
    await docket.client.add(Tasks.prototype.record, { key: 'live', delay: 60_000 })('kept');
    try {
      const refused = await docket.client.add(Tasks.prototype.gated, { key: 'live' })('refused');
      assert.equal(refused.disposition, 'already_scheduled');
      assert.equal(refused.taskName, 'record');
      assert.deepEqual(refused.args, ['kept']);
    } finally {
      await docket.client.cancel('live');
    }
  });

  it('answers already_scheduled for a queued key and adds no message', async () => {
    const first = await docket.client.add(Tasks.prototype.record, { key: 'queued' })('one');
    assert.equal(first.state, 'queued');
    const second = await docket.client.add(Tasks.prototype.record, { key: 'queued' })('two');
    assert.equal(second.disposition, 'already_scheduled');
    assert.equal(second.state, 'queued');
    // one message waits on the stream, nothing in the queue, nothing read by a worker
    assert.deepEqual(await places(docket), { queue: 1, schedule: 0, running: 0 });
    tasks.calls = [];
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, ['one']);
  });

  it('answers already_scheduled for a running key, and schedules it again once it ended', async () => {
    tasks.calls = [];
    const gate = deferred();
    const started = deferred();
    tasks.gate = gate.promise;
    tasks.started = started.resolve;
    try {
      const first = await docket.client.add(Tasks.prototype.gated, { key: 'busy' })('first');
      const running = docket.worker.runUntilFinished();
      await started.promise;
      const second = await docket.client.add(Tasks.prototype.gated, { key: 'busy' })('second');
      assert.equal(second.disposition, 'already_scheduled');
      assert.equal(second.state, 'running');
      gate.resolve();
      assert.equal(await first.result({ timeout: 5_000 }), 'first');
      await running;
      const third = await docket.client.add(Tasks.prototype.gated, { key: 'busy' })('third');
      assert.equal(third.disposition, 'scheduled');
      assert.equal(third.state, 'queued');
      await docket.worker.runUntilFinished();
      assert.equal(await third.result({ timeout: 2_000 }), 'third');
      assert.deepEqual(tasks.calls, ['first', 'third']);
    } finally {
      gate.resolve();
      tasks.gate = undefined;
      tasks.started = undefined;
    }
  });

  it('adds by name and by method reference, also for a renamed task', async () => {
    tasks.calls = [];
    const byName = await docket.client.add('record')('by-name');
    const byRef = await docket.client.add(Tasks.prototype.record)('by-ref');
    const renamedByRef = await docket.client.add(Tasks.prototype.renamed)('r1');
    const renamedByName = await docket.client.add('tasks.renamed')('r2');
    assert.equal(byName.taskName, 'record');
    assert.equal(byRef.taskName, 'record');
    assert.equal(renamedByRef.taskName, 'tasks.renamed');
    assert.equal(renamedByName.taskName, 'tasks.renamed');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls.sort(), ['by-name', 'by-ref', 'renamed:r1', 'renamed:r2']);
    assert.equal(await byName.result({ timeout: 2_000 }), 'BY-NAME');
  });

  it('adds through the bound method of the provider instance', async () => {
    tasks.calls = [];
    const execution = await docket.client.add(tasks.record)('bound');
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'BOUND');
    assert.deepEqual(tasks.calls, ['bound']);
  });

  it('gives each execution a fresh UUIDv7 key by default', async () => {
    const a = await docket.client.add(Tasks.prototype.record)('u1');
    const b = await docket.client.add(Tasks.prototype.record)('u2');
    assert.match(a.key, UUID_V7);
    assert.match(b.key, UUID_V7);
    assert.notEqual(a.key, b.key);
    // Version 7 keys are time-ordered.
    assert.ok(a.key < b.key, `${a.key} < ${b.key}`);
    assert.equal((await docket.client.getExecution(a.key))?.state, 'queued');
    await docket.worker.runUntilFinished();
  });
});
