// A worker that reads ahead of its slots (quick handlers, concurrency 20) claims what it holds
// as slots free: a task-wide concurrency limit holds, a message whose arguments do not decode
// takes no slot, and every task starts once, in the order added.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { useDocket } from '../utils.js';
import { writeEntry } from './raw.js';

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

describe('claims of messages read ahead', { timeout: 60_000 }, () => {
  it('keep a task-wide concurrency limit', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { concurrency: 20 } });
    const tasks = docket.module.get(Tasks);
    for (let i = 0; i < 60; i++) await docket.client.add(Tasks.prototype.pair)(i);
    await docket.worker.runUntilFinished();
    assert.equal(tasks.ran.length, 60);
    assert.ok(tasks.most <= 2, `at most 2 at once, not ${tasks.most}`);
  });

  it('leave no slot taken by a message whose arguments do not decode', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { concurrency: 20 } });
    // five quick tasks, then the undecodable message and a good one, read along with ends or
    // by the loop's next read
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
    // the undecodable message took no concurrency slot: the next one ran (a leaked slot of
    // `single`, concurrency 1, would hold it until its lease ran out)
    assert.equal(await good.result({ timeout: 5_000 }), 'after');
    const dead = await docket.client.deadLetters();
    assert.deepEqual(
      dead.map((d) => d.key),
      ['undecodable'],
    );
  });

  it('start every task once, in the order added', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { concurrency: 20 } });
    const tasks = docket.module.get(Tasks);
    const n = 600;
    await docket.client.addMany(
      Tasks.prototype.quick,
      Array.from({ length: n }, (_, i) => [i] as [number]),
    );
    await docket.worker.runUntilFinished();
    assert.deepEqual(
      tasks.ran,
      Array.from({ length: n }, (_, i) => i),
    );
  });
});
