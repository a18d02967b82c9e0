// What a new run of a key keeps from the run before it: a perpetual successor keeps its
// priority also when the ended record is not kept (executionTtl 0), and a task a rule defers
// (or wakes from a concurrency line) keeps the trace context its producer gave it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { deferred, useDocket, waitFor } from '../utils.js';
import { keyOf, runsHash, withRaw } from './raw.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

@Injectable()
class Tasks {
  gate = deferred();

  @DocketTask({ priority: 2, perpetual: { every: 60_000 } })
  async tick(): Promise<void> {}

  @DocketTask({ rateLimit: { limit: 1, per: 60_000 } })
  async limited(label: string): Promise<string> {
    return label;
  }

  @DocketTask({ concurrency: { max: 1 } })
  async single(label: string): Promise<void> {
    if (label === 'first') await this.gate.promise;
  }
}

describe('what a new run keeps', { timeout: 30_000 }, () => {
  it('a perpetual successor keeps its priority with executionTtl 0', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      executionTtl: 0,
      worker: { minimumCheckInterval: 50, scheduleAutomaticTasks: false },
    });
    await docket.client.add(Tasks.prototype.tick, { key: 'tick' })();
    assert.equal((await runsHash(docket.name, 'tick')).priority, '2');
    void docket.worker.runForever();
    // the first run ended (its record went with executionTtl 0) and its successor waits
    const successor = await waitFor(async () => {
      const run = await runsHash(docket.name, 'tick');
      return run.state === 'scheduled' && run;
    }, 'the successor of the first run');
    assert.equal(successor.state, 'scheduled');
    assert.equal(successor.priority, '2');
  });

  it('a task a rate limit defers keeps its trace context', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const first = await docket.client.add(Tasks.prototype.limited, { key: 'first' })('a');
    await docket.client.add(Tasks.prototype.limited, { key: 'second' })('b');
    await withRaw((redis) =>
      redis.hset(keyOf(docket.name, 'runs:second'), 'traceparent', TRACEPARENT, 'tracestate', ''),
    );
    void docket.worker.runForever();
    await first.result({ timeout: 10_000 });
    const deferredRun = await waitFor(async () => {
      const run = await runsHash(docket.name, 'second');
      return run.deferredBy === 'rate' && run;
    }, 'the second task to be deferred by the rate limit');
    assert.equal(deferredRun.state, 'scheduled');
    assert.equal(deferredRun.traceparent, TRACEPARENT);
  });

  it('a task woken from a concurrency line keeps its trace context', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.single, { key: 'first' })('first');
    void docket.worker.runForever();
    await waitFor(
      async () => (await runsHash(docket.name, 'first')).state === 'running',
      'the first task to run',
    );
    await docket.client.add(Tasks.prototype.single, { key: 'second' })('second');
    await waitFor(
      async () => (await runsHash(docket.name, 'second')).waiting !== undefined,
      'the second task to wait for the slot',
    );
    await withRaw((redis) =>
      redis.hset(keyOf(docket.name, 'runs:second'), 'traceparent', TRACEPARENT, 'tracestate', ''),
    );
    tasks.gate.resolve();
    const second = (await docket.client.getExecution('second'))!;
    await second.result({ timeout: 10_000 });
    assert.equal(second.state, 'completed');
    // the woken run was scheduled again with the trace context (kept with the ended record)
    assert.equal((await runsHash(docket.name, 'second')).traceparent, TRACEPARENT);
  });
});
