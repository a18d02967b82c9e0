// The call that records ends also claims the messages the worker holds for the slots those
// ends free: one script call per batch of quick tasks, with every check a claim of its own
// applies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { BACKEND, useDocket } from '../utils.js';
import { withRaw, writeEntry } from './raw.js';

@Injectable()
class Tasks {
  running = 0;
  most = 0;
  ran: number[] = [];

  @DocketTask({ concurrency: { max: 2 } })
  async pair(i: number): Promise<void> {
    this.running++;
    this.most = Math.max(this.most, this.running);
    await new Promise((resolve) => setImmediate(resolve));
    this.running--;
    this.ran.push(i);
  }

  @DocketTask({ concurrency: { max: 1 } })
  async single(label: string): Promise<string> {
    return label;
  }

  @DocketTask()
  async quick(i: number): Promise<number> {
    this.ran.push(i);
    return i;
  }
}

/** Script calls (EVALSHA and EVAL) the server has run so far. */
async function scriptCalls(): Promise<number> {
  const text = await withRaw((redis) => redis.info('commandstats'));
  let calls = 0;
  for (const match of text.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) {
    calls += Number(match[1]);
  }
  return calls;
}

describe('claims with ends', { timeout: 60_000 }, () => {
  it('keep a task-wide concurrency limit', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { concurrency: 10 } });
    const tasks = docket.module.get(Tasks);
    for (let i = 0; i < 60; i++) await docket.client.add(Tasks.prototype.pair)(i);
    await docket.worker.runUntilFinished();
    assert.equal(tasks.ran.length, 60);
    assert.ok(tasks.most <= 2, `at most 2 at once, not ${tasks.most}`);
  });

  it('leave no slot taken by a message whose arguments do not decode', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { concurrency: 5 } });
    // five quick tasks fill the first read; their ends read (and claim) the next messages
    for (let i = 0; i < 5; i++) await docket.client.add(Tasks.prototype.quick)(i);
    await writeEntry(docket.name, {
      key: 'undecodable',
      task: 'single',
      args: '[{"$t":"NoSuchType","v":1}]',
      when: String(Date.now()),
      attempt: '1',
      generation: '0',
    });
    const good = await docket.client.add(Tasks.prototype.single, { key: 'good' })('after');
    await docket.worker.runUntilFinished();
    // the undecodable message took no concurrency slot: the next one ran at once
    assert.equal(await good.result({ timeout: 5_000 }), 'after');
    const dead = await docket.client.deadLetters();
    assert.deepEqual(
      dead.map((d) => d.key),
      ['undecodable'],
    );
  });

  const commandStats = BACKEND === 'memory' && 'counts script calls in Redis INFO commandstats';
  it('need about one script call per batch of quick tasks', { skip: commandStats }, async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { concurrency: 10 } });
    const tasks = docket.module.get(Tasks);
    const n = 600;
    await docket.client.addMany(
      Tasks.prototype.quick,
      Array.from({ length: n }, (_, i) => [i] as [number]),
    );
    const before = await scriptCalls();
    await docket.worker.runUntilFinished();
    const calls = (await scriptCalls()) - before;
    assert.equal(tasks.ran.length, n);
    // a batch is at most 10 tasks: a claim call and a finish call per batch would be ≥ 120
    // (and were about 122); one call per batch, with a few claims of their own, is 70-85
    assert.ok(calls < 100, `${calls} script calls for ${n} tasks at concurrency 10`);
    // and they started in the order they were added
    assert.deepEqual(
      tasks.ran,
      Array.from({ length: n }, (_, i) => i),
    );
  });
});
