import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketTask,
  ExecutionCancelledError,
  type Execution,
  type TaskContext,
} from '../../../lib/index.js';
import { createDocket } from '../../utils.js';
import { record, states, within } from './helpers.js';

interface Start {
  label: string;
  /** When the worker admitted the run (epoch ms). */
  startedAt: number;
}

@Injectable()
class RateTasks {
  starts: Start[] = [];

  private start(label: string, ctx: TaskContext): void {
    this.starts.push({ label, startedAt: ctx.execution.startedAt!.getTime() });
  }

  @DocketTask({ rateLimit: { limit: 2, per: 5_000, drop: true } })
  async dropping(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.start(label, ctx);
  }

  @DocketTask({ rateLimit: { limit: 2, per: 500 } })
  async deferring(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.start(label, ctx);
  }

  @DocketTask({ rateLimit: { limit: 1, per: 5_000, argument: 'customerId', drop: true } })
  async perCustomer(customerId: number, label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.start(`${customerId}:${label}`, ctx);
  }

  @DocketTask({
    rateLimit: [
      { limit: 1, per: 300 },
      { limit: 2, per: 5_000, drop: true },
    ],
  })
  async twoWindows(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.start(label, ctx);
  }
}

describe('rateLimit', () => {
  it('drops the starts over the limit with drop: true (cancelled)', async () => {
    const docket = await createDocket([RateTasks]);
    try {
      const tasks = docket.module.get(RateTasks);
      const executions: Execution[] = [];
      for (const label of ['a', 'b', 'c']) {
        executions.push(await docket.client.add(RateTasks.prototype.dropping)(label));
      }
      await within(docket.worker.runUntilFinished(), 10_000, 'the three tasks');
      assert.deepEqual(
        tasks.starts.map((s) => s.label),
        ['a', 'b'],
      );
      await executions[0].result({ timeout: 2_000 });
      await executions[1].result({ timeout: 2_000 });
      await assert.rejects(executions[2].result({ timeout: 2_000 }), ExecutionCancelledError);
      assert.deepEqual(
        executions.map((e) => e.state),
        ['completed', 'completed', 'cancelled'],
      );
    } finally {
      await docket.close();
    }
  });

  it('reschedules the starts over the limit to when the window has room', async () => {
    const docket = await createDocket([RateTasks]);
    try {
      const tasks = docket.module.get(RateTasks);
      const executions: Execution[] = [];
      for (const label of ['a', 'b', 'c']) {
        executions.push(await docket.client.add(RateTasks.prototype.deferring)(label));
      }
      const third = await record(executions[2]);
      await within(docket.worker.runUntilFinished(), 10_000, 'the three tasks');
      for (const execution of executions) await execution.result({ timeout: 2_000 });
      const [a, b, c] = tasks.starts;
      assert.deepEqual(
        tasks.starts.map((s) => s.label),
        ['a', 'b', 'c'],
      );
      assert.ok(
        c.startedAt >= a.startedAt + 500,
        `c started ${c.startedAt - a.startedAt}ms after a`,
      );
      assert.ok(
        b.startedAt < a.startedAt + 500,
        `b started ${b.startedAt - a.startedAt}ms after a`,
      );
      const seen = states(await within(third.events, 2_000, 'the third task to end'));
      assert.ok(seen.includes('scheduled'), `c went ${seen.join(' → ')}`);
      assert.equal(seen.at(-1), 'completed');
    } finally {
      await docket.close();
    }
  });

  it('counts the starts of each argument value apart', async () => {
    const docket = await createDocket([RateTasks]);
    try {
      const tasks = docket.module.get(RateTasks);
      const executions: Execution[] = [];
      for (const [customerId, label] of [
        [1, 'a'],
        [2, 'a'],
        [1, 'b'],
        [2, 'b'],
      ] as const) {
        executions.push(
          await docket.client.add(RateTasks.prototype.perCustomer)(customerId, label),
        );
      }
      await within(docket.worker.runUntilFinished(), 10_000, 'the four tasks');
      assert.deepEqual(
        tasks.starts.map((s) => s.label),
        ['1:a', '2:a'],
      );
      for (const execution of executions) await execution.sync();
      assert.deepEqual(
        executions.map((e) => e.state),
        ['completed', 'completed', 'cancelled', 'cancelled'],
      );
    } finally {
      await docket.close();
    }
  });

  it('applies every window of an array of limits', async () => {
    const docket = await createDocket([RateTasks]);
    try {
      const tasks = docket.module.get(RateTasks);
      const executions: Execution[] = [];
      for (const label of ['a', 'b', 'c']) {
        executions.push(await docket.client.add(RateTasks.prototype.twoWindows)(label));
      }
      await within(docket.worker.runUntilFinished(), 10_000, 'the three tasks');
      for (const execution of executions) await execution.sync();
      // 1 per 300 ms holds b back; 2 per 5 s drops c.
      const [a, b] = tasks.starts;
      assert.deepEqual(
        tasks.starts.map((s) => s.label),
        ['a', 'b'],
      );
      assert.ok(
        b.startedAt >= a.startedAt + 300,
        `b started ${b.startedAt - a.startedAt}ms after a`,
      );
      assert.deepEqual(
        executions.map((e) => e.state),
        ['completed', 'completed', 'cancelled'],
      );
    } finally {
      await docket.close();
    }
  });
});
