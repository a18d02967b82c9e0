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
import { within } from './helpers.js';

interface Run {
  label: string;
  startedAt: number;
}

@Injectable()
class CooldownTasks {
  runs: Run[] = [];

  private run(label: string, ctx: TaskContext): void {
    this.runs.push({ label, startedAt: ctx.execution.startedAt!.getTime() });
  }

  @DocketTask({ cooldown: { window: 1_000, argument: 'customerId' } })
  async notify(customerId: number, label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.run(`${customerId}:${label}`, ctx);
  }

  @DocketTask({ cooldown: { window: 300 } })
  async briefly(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.run(label, ctx);
  }

  @DocketTask({ cooldown: [{ window: 100 }, { window: 5_000 }] })
  async twoWindows(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.run(label, ctx);
  }
}

/** Wait until `ms` after `since` (epoch ms) has passed. */
async function past(since: number, ms: number): Promise<void> {
  const left = since + ms - Date.now();
  // a timer that holds the process: on memory:// no socket does
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left + 10));
}

describe('cooldown', () => {
  it('runs the first add and drops a repeat within the window; another value runs', async () => {
    const docket = await createDocket([CooldownTasks]);
    let working: Promise<void> | undefined;
    try {
      const tasks = docket.module.get(CooldownTasks);
      const add = (customerId: number, label: string) =>
        docket.client.add(CooldownTasks.prototype.notify)(customerId, label);
      working = docket.worker.runForever();
      const first = await add(1, 'first');
      await first.result({ timeout: 5_000 });
      const repeat = await add(1, 'repeat');
      const other = await add(2, 'other');
      await assert.rejects(repeat.result({ timeout: 5_000 }), ExecutionCancelledError);
      await other.result({ timeout: 5_000 });
      assert.deepEqual(
        tasks.runs.map((r) => r.label),
        ['1:first', '2:other'],
      );
      assert.equal(repeat.state, 'cancelled');
      // The repeat was turned away inside the window.
      assert.ok(repeat.completedAt!.getTime() < tasks.runs[0].startedAt + 1_000);
    } finally {
      await docket.close();
      await working;
    }
  });

  it('drops the repeats of one batch and runs again after the window', async () => {
    const docket = await createDocket([CooldownTasks]);
    try {
      const tasks = docket.module.get(CooldownTasks);
      const add = (label: string) => docket.client.add(CooldownTasks.prototype.briefly)(label);
      const executions: Execution[] = [await add('a'), await add('b'), await add('c')];
      await within(docket.worker.runUntilFinished(), 5_000, 'the first batch');
      assert.deepEqual(
        tasks.runs.map((r) => r.label),
        ['a'],
      );
      await past(tasks.runs[0].startedAt, 300);
      const later = await add('later');
      await within(docket.worker.runUntilFinished(), 5_000, 'the add after the window');
      assert.deepEqual(
        tasks.runs.map((r) => r.label),
        ['a', 'later'],
      );
      for (const execution of [...executions, later]) await execution.sync();
      assert.deepEqual(
        [...executions, later].map((e) => e.state),
        ['completed', 'cancelled', 'cancelled', 'completed'],
      );
    } finally {
      await docket.close();
    }
  });

  it('applies every window of an array of cooldowns', async () => {
    const docket = await createDocket([CooldownTasks]);
    try {
      const tasks = docket.module.get(CooldownTasks);
      const add = (label: string) => docket.client.add(CooldownTasks.prototype.twoWindows)(label);
      await add('first');
      await within(docket.worker.runUntilFinished(), 5_000, 'the first run');
      await past(tasks.runs[0].startedAt, 100);
      const repeat = await add('repeat');
      await within(docket.worker.runUntilFinished(), 5_000, 'the repeat');
      await repeat.sync();
      assert.deepEqual(
        tasks.runs.map((r) => r.label),
        ['first'],
      );
      assert.equal(repeat.state, 'cancelled');
    } finally {
      await docket.close();
    }
  });
});
