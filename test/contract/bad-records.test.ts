// One bad record affects only itself (SPEC §10): a message whose Redis records cannot be read
// is dead-lettered alone and the rest of the call goes on; a foreign entry never fails a live
// execution; the scheduler finds due work nobody announced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { useDocket, waitFor } from '../utils.js';
import { rawRedis } from './raw.js';

@Injectable()
class Tasks {
  ran: string[] = [];

  @DocketTask()
  async note(label: string): Promise<string> {
    this.ran.push(label);
    return label;
  }

  /** Overwrites its own record with a string while it runs: its end cannot be written. */
  @DocketTask()
  async spoil(@Ctx() ctx: TaskContext): Promise<string> {
    const redis = rawRedis();
    try {
      await redis.set(`{${ctx.docket.name}}:runs:${ctx.key}`, 'not a hash');
    } finally {
      redis.disconnect();
    }
    return 'spoilt';
  }
}

describe('one bad record', () => {
  it('of a queued message is dead-lettered alone; the messages claimed with it run', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const tasks = docket.module.get(Tasks);
    const good = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((label) =>
        docket.client.add(Tasks.prototype.note, { key: label })(label),
      ),
    );
    await docket.client.add(Tasks.prototype.note, { key: 'bad' })('bad');
    const redis = rawRedis();
    try {
      await redis.set(`{${docket.name}}:runs:bad`, 'wrong type');
    } finally {
      redis.disconnect();
    }
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.ran.sort(), ['a', 'b', 'c', 'd', 'e']);
    for (const execution of good)
      assert.equal(await execution.result({ timeout: 1_000 }), execution.key);
    const letters = await docket.client.deadLetters();
    assert.equal(letters.length, 1);
    assert.equal(letters[0].key, 'bad');
    assert.equal(letters[0].taskName, 'note');
    assert.match(letters[0].error, /^UnreadableRecordError: WRONGTYPE/);
  });

  it('of a future task takes it out of the queue alone; the others come due', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const tasks = docket.module.get(Tasks);
    for (const label of ['f1', 'f2', 'broken', 'f3']) {
      await docket.client.add(Tasks.prototype.note, { key: label, delay: 300 })(label);
    }
    const redis = rawRedis();
    try {
      await redis.del(`{${docket.name}}:parked:broken`);
      await redis.rpush(`{${docket.name}}:parked:broken`, 'a list, not a hash');
    } finally {
      redis.disconnect();
    }
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.ran.sort(), ['f1', 'f2', 'f3']);
    const broken = await docket.client.getExecution('broken');
    assert.equal(broken?.state, 'failed');
    assert.match(broken?.error ?? '', /^UnreadableRecordError: WRONGTYPE/);
    const [letter] = await docket.client.deadLetters();
    assert.equal(letter.key, 'broken');
  });

  it('of a future task that others wait for fails them too', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.note, { key: 'dep', delay: 300 })('dep');
    const waiter = await docket.client.add(Tasks.prototype.note, { key: 'w', after: 'dep' })('w');
    const redis = rawRedis();
    try {
      await redis.del(`{${docket.name}}:parked:dep`);
      await redis.rpush(`{${docket.name}}:parked:dep`, 'a list, not a hash');
    } finally {
      redis.disconnect();
    }
    await docket.worker.runUntilFinished();
    await assert.rejects(
      waiter.result({ timeout: 1_000 }),
      /DependencyFailedError: dependency dep failed: UnreadableRecordError: WRONGTYPE/,
    );
    assert.deepEqual(tasks.ran, []);
  });

  it('met when an end is written fails that end alone; the ends written with it land', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const spoilt = await docket.client.add(Tasks.prototype.spoil, { key: 'spoilt' })();
    const fine = await Promise.all(
      ['g', 'h'].map((label) => docket.client.add(Tasks.prototype.note, { key: label })(label)),
    );
    await docket.worker.runUntilFinished();
    for (const execution of fine)
      assert.equal(await execution.result({ timeout: 1_000 }), execution.key);
    const letters = await docket.client.deadLetters();
    assert.deepEqual(
      letters.map((letter) => letter.key),
      [spoilt.key],
    );
    assert.match(letters[0].error, /^UnreadableRecordError: WRONGTYPE/);
  });

  it('of one add fails that add alone; the adds sent with it are scheduled', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    const redis = rawRedis();
    try {
      await redis.set(`{${docket.name}}:runs:taken`, 'wrong type');
    } finally {
      redis.disconnect();
    }
    // one turn of the event loop: the three adds travel in one call
    const [before, bad, after] = await Promise.allSettled([
      docket.client.add('note', { key: 'before' })('1'),
      docket.client.add('note', { key: 'taken' })('2'),
      docket.client.add('note', { key: 'after' })('3'),
    ]);
    assert.equal(before.status, 'fulfilled');
    assert.equal(after.status, 'fulfilled');
    assert.equal(bad.status, 'rejected');
    assert.match(
      String((bad as PromiseRejectedResult).reason),
      /key taken cannot be scheduled: UnreadableRecordError: WRONGTYPE/,
    );
    assert.equal((await docket.client.getExecution('after'))?.state, 'queued');
  });

  it('of a foreign entry carrying a live key and generation leaves the live execution alone', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const tasks = docket.module.get(Tasks);
    const live = await docket.client.add(Tasks.prototype.note, { key: 'live', delay: 400 })('real');
    const redis = rawRedis();
    try {
      await redis.xadd(
        `{${docket.name}}:stream`,
        '*',
        ...['key', 'live', 'task', 'note', 'args', '{not json', 'when', String(Date.now())],
        ...['attempt', '1', 'generation', String(live.generation)],
      );
    } finally {
      redis.disconnect();
    }
    await docket.worker.runUntilFinished();
    assert.equal(await live.result({ timeout: 1_000 }), 'real');
    assert.deepEqual(tasks.ran, ['real']);
    const [letter] = await docket.client.deadLetters();
    assert.equal(letter.key, 'live');
    assert.match(letter.error, /args cannot be decoded/);
  });
});

describe('the scheduler', () => {
  it(
    'finds a future task that nobody announced (a foreign producer)',
    { timeout: 20_000 },
    async (t) => {
      const docket = await useDocket(t, [Tasks], {
        heartbeatInterval: 200,
        worker: { minimumCheckInterval: 50 },
      });
      const tasks = docket.module.get(Tasks);
      // a far task first, so that the scheduler sleeps long
      await docket.client.add(Tasks.prototype.note, { key: 'far', delay: 3_600_000 })('far');
      const forever = docket.worker.runForever();
      t.after(() => docket.close());
      await waitFor(() => docket.worker.status().state === 'running', 'the worker to start');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // a producer that writes the queue and the parked message, and publishes nothing
      const redis = rawRedis();
      const due = Date.now() + 300;
      try {
        const prefix = `{${docket.name}}:`;
        await redis.hset(
          `${prefix}parked:quiet`,
          ...['key', 'quiet', 'task', 'note', 'args', '["quiet"]', 'when', String(due)],
          ...['attempt', '1', 'generation', '0'],
        );
        await redis.zadd(`${prefix}queue`, due, 'quiet');
      } finally {
        redis.disconnect();
      }
      await waitFor(() => tasks.ran.includes('quiet'), 'the unannounced task to run', 10_000);
      void forever;
    },
  );
});
