import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type Execution, type TaskContext } from '../../../lib/index.js';
import { createDocket } from '../../utils.js';
import { within } from './helpers.js';

interface Run {
  customerId: number;
  label: string;
  startedAt: number;
}

@Injectable()
class DebounceTasks {
  runs: Run[] = [];

  @DocketTask({ debounce: { settle: 200, argument: 'customerId' } })
  async recompute(customerId: number, label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.runs.push({ customerId, label, startedAt: ctx.execution.startedAt!.getTime() });
  }
}

describe('debounce', () => {
  it('runs a burst of adds for one argument value once, settle after the last add', async () => {
    const docket = await createDocket([DebounceTasks]);
    try {
      const tasks = docket.module.get(DebounceTasks);
      const add = (customerId: number, label: string) =>
        docket.client.add(DebounceTasks.prototype.recompute)(customerId, label);
      const burst: Execution[] = [await add(1, 'first')];
      const other = await add(2, 'other');
      const firstAdd = Date.now();
      const running = docket.worker.runUntilFinished();
      let lastAdd = 0;
      for (const label of ['second', 'third', 'fourth', 'fifth']) {
        lastAdd = Date.now();
        burst.push(await add(1, label));
      }
      await within(running, 10_000, 'the debounced runs');

      const one = tasks.runs.filter((r) => r.customerId === 1);
      const two = tasks.runs.filter((r) => r.customerId === 2);
      assert.equal(one.length, 1, `customer 1 ran ${one.map((r) => r.label).join(', ')}`);
      assert.equal(two.length, 1);
      assert.ok(
        one[0].startedAt >= lastAdd + 200,
        `ran ${one[0].startedAt - lastAdd}ms after the last add (${one[0].startedAt - firstAdd}ms after the first)`,
      );
      for (const execution of [...burst, other]) await execution.sync();
      assert.equal(burst.filter((e) => e.state === 'completed').length, 1);
      assert.equal(burst.filter((e) => e.state === 'cancelled').length, 4);
      assert.equal(other.state, 'completed');
    } finally {
      await docket.close();
    }
  });

  it('runs again for a burst that comes after the first one ran', async () => {
    const docket = await createDocket([DebounceTasks]);
    try {
      const tasks = docket.module.get(DebounceTasks);
      const add = (label: string) => docket.client.add(DebounceTasks.prototype.recompute)(7, label);
      await add('a1');
      await add('a2');
      await within(docket.worker.runUntilFinished(), 10_000, 'the first burst');
      await add('b1');
      await add('b2');
      await within(docket.worker.runUntilFinished(), 10_000, 'the second burst');
      assert.equal(tasks.runs.length, 2, tasks.runs.map((r) => r.label).join(', '));
      assert.ok(tasks.runs[1].startedAt >= tasks.runs[0].startedAt + 200);
    } finally {
      await docket.close();
    }
  });
});
