import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { DocketTask } from '../../lib/index.js';
import { BACKEND, REDIS_URL, useDocket } from '../utils.js';

@Injectable()
class Tasks {
  @DocketTask()
  async ship(order: string): Promise<string> {
    if (order.startsWith('bad')) throw new Error(`cannot ship ${order}`);
    return `shipped ${order}`;
  }

  @DocketTask()
  async bill(amount: number): Promise<number> {
    return amount;
  }
}

const OPTIONS = { worker: { minimumCheckInterval: 100 } };

describe('history of finished executions', { timeout: 30_000 }, () => {
  it('is not kept, and costs no key, while nobody keeps one', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.client.add(Tasks.prototype.ship, { key: 'h-1' })('a');
    await docket.worker.runUntilFinished();
    assert.deepEqual(await docket.inspector.history(), { total: 0, offset: 0, tasks: [] });
    if (BACKEND === 'redis') {
      const redis = new Redis(REDIS_URL);
      t.after(() => redis.quit());
      assert.equal(await redis.exists(`{${docket.name}}:history`), 0);
    }
  });

  it('lists the newest ends first, bounded, with states, filters and pages', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.inspector.keepHistory(4);
    const { client, worker } = docket;
    // one at a time, so that their ends are in this order
    for (const [key, order] of [
      ['o-1', 'one'],
      ['o-2', 'bad-two'],
      ['o-3', 'three'],
      ['o-4', 'bad-four'],
      ['o-5', 'five'],
    ]) {
      await client.add(Tasks.prototype.ship, { key })(order);
      await worker.runUntilFinished();
    }
    await client.add(Tasks.prototype.bill, { key: 'p-1' })(12);
    await worker.runUntilFinished();
    const later = await client.add(Tasks.prototype.bill, { key: 'q-later', delay: 600_000 })(1);
    assert.equal(await client.cancel(later.key), 'cancelled');

    const all = await docket.inspector.history();
    // the newest 4 of 7 ends
    assert.equal(all.total, 4);
    assert.deepEqual(
      all.tasks.map((e) => [e.key, e.state]),
      [
        ['q-later', 'cancelled'],
        ['p-1', 'completed'],
        ['o-5', 'completed'],
        ['o-4', 'failed'],
      ],
    );
    const failed = all.tasks[3];
    assert.equal(failed.taskName, 'ship');
    assert.deepEqual(failed.args, ['bad-four']);
    assert.equal(failed.error, 'Error: cannot ship bad-four');
    assert.ok(failed.startedAt instanceof Date && failed.completedAt >= failed.startedAt);
    assert.ok(typeof failed.worker === 'string' && failed.worker.length > 0);

    const onlyFailed = await docket.inspector.history({ states: ['failed'] });
    assert.deepEqual(
      onlyFailed.tasks.map((e) => e.key),
      ['o-4'],
    );
    const billed = await docket.inspector.history({ task: 'bill' });
    assert.deepEqual(
      billed.tasks.map((e) => e.key),
      ['q-later', 'p-1'],
    );
    // by key prefix, by argument text and by error text
    assert.deepEqual((await docket.inspector.history({ search: 'O-' })).total, 2);
    assert.deepEqual(
      (await docket.inspector.history({ search: 'five' })).tasks.map((e) => e.key),
      ['o-5'],
    );
    assert.deepEqual(
      (await docket.inspector.history({ search: 'cannot ship' })).tasks.map((e) => e.key),
      ['o-4'],
    );
    const page = await docket.inspector.history({ offset: 1, limit: 2 });
    assert.equal(page.total, 4);
    assert.deepEqual(
      page.tasks.map((e) => e.key),
      ['p-1', 'o-5'],
    );
    await assert.rejects(
      docket.inspector.history({ states: ['running' as never] }),
      /history\(\): states are completed, failed, cancelled, not running/,
    );
    await assert.rejects(docket.inspector.keepHistory(0), /size is a whole number from 1 to 10000/);
  });

  it('drops an execution that is live again, and one whose record is gone', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.inspector.keepHistory(100);
    const { client, worker } = docket;
    await client.add(Tasks.prototype.bill, { key: 'again' })(1);
    await client.add(Tasks.prototype.bill, { key: 'short' })(2);
    await worker.runUntilFinished();
    assert.equal((await docket.inspector.history()).total, 2);
    // added again: live, so not in the history until it ends again
    await client.add(Tasks.prototype.bill, { key: 'again', delay: 600_000 })(3);
    assert.deepEqual(
      (await docket.inspector.history()).tasks.map((e) => e.key),
      ['short'],
    );
    if (BACKEND === 'redis') {
      // its record gone (as after executionTtl): it leaves the history, and the history's set
      const redis = new Redis(REDIS_URL);
      t.after(() => redis.quit());
      await redis.del(`{${docket.name}}:runs:short`);
      assert.deepEqual(await docket.inspector.history(), { total: 0, offset: 0, tasks: [] });
      assert.equal(await redis.zcard(`{${docket.name}}:history`), 0);
    }
  });

  it('lists nothing with executionTtl 0: the records are gone at the end', async (t) => {
    const docket = await useDocket(t, [Tasks], { ...OPTIONS, executionTtl: 0 });
    await docket.inspector.keepHistory(100);
    await docket.client.add(Tasks.prototype.bill, { key: 'gone' })(1);
    await docket.worker.runUntilFinished();
    assert.deepEqual(await docket.inspector.history(), { total: 0, offset: 0, tasks: [] });
  });

  it('keeps the newest of thousands of ends made in one call', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.inspector.keepHistory(1_000);
    const args = Array.from({ length: 5_000 }, (_, i): [number] => [i]);
    await docket.client.addMany(Tasks.prototype.bill, args, { delay: 600_000 });
    // one script call cancels every one of them
    assert.equal(await docket.client.clear(), 5_000);
    const kept = await docket.inspector.history({ limit: 1_000 });
    assert.equal(kept.total, 1_000);
    assert.ok(kept.tasks.every((e) => e.state === 'cancelled'));
  });

  it('searches the arguments only when asked', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.inspector.keepHistory(10);
    await docket.client.add(Tasks.prototype.ship, { key: 's-1' })('secret-order');
    await docket.worker.runUntilFinished();
    assert.equal((await docket.inspector.history({ search: 'secret' })).total, 1);
    const without = await docket.inspector.history({ search: 'secret', searchArguments: false });
    assert.equal(without.total, 0);
    assert.equal(
      (await docket.inspector.history({ search: 's-', searchArguments: false })).total,
      1,
    );
  });
});
