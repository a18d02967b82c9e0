import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type ExecutionEvent, type TaskContext } from '../../../lib/index.js';
import { createDocket } from '../../utils.js';
import { record, within } from './helpers.js';

@Injectable()
class ProgressTasks {
  errors: unknown[] = [];

  @DocketTask()
  async report(@Ctx() ctx: TaskContext): Promise<string> {
    await ctx.progress.setTotal(3);
    for (let i = 0; i < 3; i++) await ctx.progress.increment();
    await ctx.progress.setMessage('x');
    return 'done';
  }

  @DocketTask()
  async badCounts(@Ctx() ctx: TaskContext): Promise<void> {
    for (const bad of [
      () => ctx.progress.setTotal(0),
      () => ctx.progress.setTotal(2.5),
      () => ctx.progress.increment(0),
      () => ctx.progress.increment(-1),
    ]) {
      try {
        await bad();
      } catch (error) {
        this.errors.push(error);
      }
    }
  }

  @DocketTask()
  async zeroTotal(@Ctx() ctx: TaskContext): Promise<void> {
    await ctx.progress.setTotal(0);
  }
}

type Progress = Extract<ExecutionEvent, { type: 'progress' }>;

describe('progress', () => {
  it('publishes each change in order and keeps the final progress', async () => {
    const docket = await createDocket([ProgressTasks], { executionTtl: 60_000 });
    try {
      const execution = await docket.client.add(ProgressTasks.prototype.report, { key: 'rep' })();
      const recording = await record(execution);
      await docket.worker.runUntilFinished();
      const events = await within(recording.events, 5_000, 'the end of the execution');

      const progress = events.filter((e): e is Progress => e.type === 'progress');
      // First the progress as it was when the subscription began (none yet), then each change.
      assert.deepEqual(
        progress.map((p) => [p.current, p.total, p.message]),
        [
          [null, null, null],
          [0, 3, null],
          [1, 3, null],
          [2, 3, null],
          [3, 3, null],
          [3, 3, 'x'],
        ],
      );
      const last = progress.at(-1)!;
      assert.equal(last.current, last.total);
      const times = progress.slice(1).map((p) => p.updatedAt!.getTime());
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
      );
      const running = events.findIndex((e) => e.type === 'state' && e.state === 'running');
      const completed = events.findIndex((e) => e.type === 'state' && e.state === 'completed');
      const changes = events.flatMap((e, i) => (e.type === 'progress' && i > 1 ? [i] : []));
      assert.ok(running >= 0 && completed === events.length - 1, 'running … completed');
      assert.ok(
        changes.every((i) => i > running && i < completed),
        'progress while running',
      );

      const after = await docket.client.getExecution('rep');
      assert.equal(after?.state, 'completed');
      assert.deepEqual(
        { current: after?.progress.current, total: after?.progress.total },
        { current: 3, total: 3 },
      );
      assert.equal(after?.progress.message, 'x');
      assert.equal(after?.progress.updatedAt?.getTime(), last.updatedAt?.getTime());
      // the read model keeps it too (test/contract/key-lifetimes checks that it expires)
      const [kept] = await docket.inspector.progress(['rep']);
      assert.deepEqual(kept, after?.progress);
    } finally {
      await docket.close();
    }
  });

  it('refuses a total or an increment that is not a whole number ≥ 1 with RangeError', async () => {
    const docket = await createDocket([ProgressTasks]);
    try {
      const tasks = docket.module.get(ProgressTasks);
      const caught = await docket.client.add(ProgressTasks.prototype.badCounts)();
      const thrown = await docket.client.add(ProgressTasks.prototype.zeroTotal)();
      await docket.worker.runUntilFinished();
      await caught.result({ timeout: 2_000 });
      assert.equal(tasks.errors.length, 4);
      for (const error of tasks.errors) assert.ok(error instanceof RangeError, String(error));
      assert.match(String((tasks.errors[0] as Error).message), /whole number ≥ 1, not 0/);
      assert.equal((await docket.client.getExecution(caught.key))?.progress.current, null);
      await assert.rejects(thrown.result({ timeout: 2_000 }), { name: 'RangeError' });
    } finally {
      await docket.close();
    }
  });
});
