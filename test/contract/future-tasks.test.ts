// Where a future task waits: its key in the queue (a sorted set scored by its `when`), and its
// record once, in `runs:<key>`, from which the scheduler makes its message when it comes due
// (no `parked:<key>` copy: a producer of the wire format may still write one). An add of a live
// key changes neither; a replace rewrites both (or moves the task to the stream when due); a
// cancel removes it; a cron task is seeded, and its successor scheduled, at the score of its time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask, type Execution } from '../../lib/index.js';
import { createDocket, useDocket, waitFor } from '../utils.js';
import { keyOf, queueScore, rawQueueScore, runsHash, streamLength, withRaw } from './raw.js';

@Injectable()
class Tasks {
  calls: string[] = [];

  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value;
  }
}

@Injectable()
class EveryMinuteTasks {
  @DocketTask({ cron: '* * * * *' })
  async everyMinute(): Promise<void> {}
}

@Injectable()
class ManualCronTasks {
  @DocketTask({ cron: { expression: '*/5 * * * *', automatic: false } })
  async everyFiveMinutes(label: string): Promise<string> {
    return label;
  }
}

const FAST = { worker: { minimumCheckInterval: 100 } };

/** The queue's size, and the parked message of `key` (empty when there is none). */
function parked(name: string, key: string) {
  return withRaw(async (redis) => ({
    queued: await redis.zcard(keyOf(name, 'queue')),
    parked: await redis.hgetall(keyOf(name, `parked:${key}`)),
  }));
}

describe('future tasks in the queue', { timeout: 60_000 }, () => {
  it('an add of a scheduled key changes neither its queue score nor its record', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const when = new Date(Date.now() + 60_000);
    await docket.client.add(Tasks.prototype.record, { key: 'future', when })('old');
    const second = await docket.client.add(Tasks.prototype.record, { key: 'future', delay: 5 })(
      'new',
    );
    assert.equal(second.disposition, 'already_scheduled');
    const runs = await runsHash(docket.name, 'future');
    assert.equal(runs.args, '["old"]');
    assert.equal(runs.when, String(when.getTime()));
    assert.equal(runs.generation, '1');
    assert.equal(await queueScore(docket.name, 'future'), when.getTime());
    // stored once: no copy of its message waits beside its record
    assert.deepEqual((await parked(docket.name, 'future')).parked, {});
    await docket.client.cancel('future');
  });

  it('a replace of a scheduled task rewrites its score and its record', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await docket.client.add(Tasks.prototype.record, { key: 'r', delay: 60_000 })('old');
    const replaced = await docket.client.replace(Tasks.prototype.record, { key: 'r', delay: 500 })(
      'new',
    );
    const { queued, parked: message } = await parked(docket.name, 'r');
    assert.equal(queued, 1);
    assert.equal(await queueScore(docket.name, 'r'), replaced.when.getTime());
    assert.deepEqual(message, {});
    const runs = await runsHash(docket.name, 'r');
    assert.equal(runs.args, '["new"]');
    assert.equal(runs.generation, String(replaced.generation));
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).calls, ['new']);
  });

  it('a replace of a future task with a due one moves it from the queue to the stream', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await docket.client.add(Tasks.prototype.record, { key: 'f', delay: 60_000 })('later');
    await docket.client.replace(Tasks.prototype.record, { key: 'f' })('now');
    assert.deepEqual(await parked(docket.name, 'f'), { queued: 0, parked: {} });
    assert.equal(await streamLength(docket.name), 1);
  });

  it('scores tasks due in the same ms by add order: when * 1024 + their place', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const when = new Date(Date.now() + 60_000);
    const keys = ['zeta', 'alpha', 'mu', 'beta'];
    for (const key of keys) await docket.client.add(Tasks.prototype.record, { key, when })('x');
    const other = new Date(when.getTime() + 1);
    await docket.client.add(Tasks.prototype.record, { key: 'next-ms', when: other })('x');
    const scores = await Promise.all(keys.map((key) => rawQueueScore(docket.name, key)));
    const base = when.getTime() * 1024;
    assert.deepEqual(scores, [base, base + 1, base + 2, base + 3]);
    assert.equal(await rawQueueScore(docket.name, 'next-ms'), other.getTime() * 1024);
    // a key cancelled from the middle leaves its place; the next add comes after the last
    await docket.client.cancel('alpha');
    await docket.client.add(Tasks.prototype.record, { key: 'late', when })('x');
    assert.equal(await rawQueueScore(docket.name, 'late'), base + 4);
  });

  it('a cancel of a scheduled task removes it from the queue', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await docket.client.add(Tasks.prototype.record, { key: 's', delay: 60_000 })('x');
    assert.equal((await parked(docket.name, 's')).queued, 1);
    await docket.client.cancel('s');
    assert.deepEqual(await parked(docket.name, 's'), { queued: 0, parked: {} });
    assert.equal(await queueScore(docket.name, 's'), null);
  });

  it('an automatic cron task is seeded at the score of its next time', async () => {
    const docket = await createDocket([EveryMinuteTasks], { worker: { autoStart: true } });
    try {
      const seeded: Execution = await waitFor(
        () => docket.client.getExecution('everyMinute'),
        'the automatic cron task to be seeded',
      );
      const when = seeded.when.getTime();
      if (Date.now() < when - 500) {
        // Still before that minute: it waits in the queue.
        assert.equal(await queueScore(docket.name, 'everyMinute'), when);
      }
    } finally {
      await docket.close();
    }
  });

  it('the successor of a cron task added by hand waits at the score of the next match', async (t) => {
    const docket = await useDocket(t, [ManualCronTasks], FAST);
    const execution = await docket.client.add(ManualCronTasks.prototype.everyFiveMinutes, {
      key: 'manual',
    })('by hand');
    assert.equal(execution.state, 'queued');
    // listen (its first event is the current state) before the worker starts
    const events = execution.subscribe()[Symbol.asyncIterator]();
    await events.next();
    const working = docket.worker.runForever();
    t.after(() => working);
    for (let event = await events.next(); ; event = await events.next()) {
      assert.ok(!event.done, 'the execution ended without completing');
      if (event.value.type === 'state' && event.value.state === 'completed') break;
    }
    await events.return?.();
    const successor = await docket.client.getExecution('manual');
    assert.equal(successor?.state, 'scheduled');
    assert.equal(await queueScore(docket.name, 'manual'), successor!.when.getTime());
  });
});
