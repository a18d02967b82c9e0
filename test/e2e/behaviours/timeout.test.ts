import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketTask,
  ExecutionCancelledError,
  TimeoutError,
  type TaskContext,
} from '../../../lib/index.js';
import { createDocket, deferred } from '../../utils.js';
import { sleep, within } from './helpers.js';

@Injectable()
class TimeoutTasks {
  attempts: number[] = [];
  signals: AbortSignal[] = [];
  remaining: number[] = [];
  started = deferred();

  @DocketTask({ timeout: 100 })
  async hangs(@Ctx() ctx: TaskContext): Promise<string> {
    this.attempts.push(ctx.attempt);
    this.signals.push(ctx.signal);
    await sleep(5_000); // ignores its signal
    return 'late';
  }

  @DocketTask({ timeout: 100, retry: { attempts: 2 } })
  async hangsOnce(@Ctx() ctx: TaskContext): Promise<string> {
    this.attempts.push(ctx.attempt);
    this.signals.push(ctx.signal);
    if (ctx.attempt === 1) await sleep(5_000);
    return `attempt ${ctx.attempt}`;
  }

  @DocketTask({ timeout: 100, retry: { attempts: 2 } })
  async alwaysHangs(@Ctx() ctx: TaskContext): Promise<void> {
    this.attempts.push(ctx.attempt);
    await sleep(5_000);
  }

  @DocketTask({ timeout: 200 })
  async extends(@Ctx() ctx: TaskContext): Promise<string> {
    this.attempts.push(ctx.attempt);
    this.remaining.push(ctx.timeout.remaining());
    await sleep(60);
    this.remaining.push(ctx.timeout.remaining());
    ctx.timeout.extend(300);
    this.remaining.push(ctx.timeout.remaining());
    await sleep(250); // 310 ms in all: past the first deadline, within the extended one
    this.remaining.push(ctx.timeout.remaining());
    return 'finished';
  }

  @DocketTask({ timeout: 150 })
  async extendsByItsTimeout(@Ctx() ctx: TaskContext): Promise<string> {
    await sleep(100);
    ctx.timeout.extend();
    await sleep(100); // 200 ms in all
    return 'finished';
  }

  @DocketTask()
  async untimed(@Ctx() ctx: TaskContext): Promise<number> {
    return ctx.timeout.remaining();
  }

  @DocketTask({ timeout: 5_000, retry: { attempts: 3 } })
  async cancellable(@Ctx() ctx: TaskContext): Promise<void> {
    this.attempts.push(ctx.attempt);
    this.signals.push(ctx.signal);
    this.started.resolve();
    await new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
    );
  }
}

describe('timeout', () => {
  it('fails a task that runs past its timeout with TimeoutError and aborts its signal', async () => {
    const docket = await createDocket([TimeoutTasks]);
    try {
      const tasks = docket.module.get(TimeoutTasks);
      const execution = await docket.client.add(TimeoutTasks.prototype.hangs, { key: 'slow' })();
      await within(docket.worker.runUntilFinished(), 3_000, 'the task to time out');
      await assert.rejects(execution.result({ timeout: 2_000 }), {
        name: 'TimeoutError',
        message: 'task slow exceeded timeout of 100ms',
      });
      assert.equal(execution.state, 'failed');
      assert.equal(execution.error, 'TimeoutError: task slow exceeded timeout of 100ms');
      const took = execution.completedAt!.getTime() - execution.startedAt!.getTime();
      assert.ok(took >= 100 && took < 1_000, `failed after ${took}ms`);
      assert.deepEqual(tasks.attempts, [1]);
      const [signal] = tasks.signals;
      assert.equal(signal.aborted, true);
      assert.ok(signal.reason instanceof TimeoutError);
      assert.equal((signal.reason as Error).message, 'task slow exceeded timeout of 100ms');
      const [dead] = await docket.client.deadLetters();
      assert.equal(dead.key, 'slow');
      assert.equal(dead.error, 'TimeoutError: task slow exceeded timeout of 100ms');
    } finally {
      await docket.close();
    }
  });

  it('retries a timed-out attempt', async () => {
    const docket = await createDocket([TimeoutTasks]);
    try {
      const tasks = docket.module.get(TimeoutTasks);
      const once = await docket.client.add(TimeoutTasks.prototype.hangsOnce)();
      await within(docket.worker.runUntilFinished(), 3_000, 'the retry');
      assert.equal(await once.result({ timeout: 2_000 }), 'attempt 2');
      assert.deepEqual(tasks.attempts, [1, 2]);
      assert.equal(tasks.signals[0].aborted, true);
      assert.equal(tasks.signals[1].aborted, false);

      tasks.attempts = [];
      const always = await docket.client.add(TimeoutTasks.prototype.alwaysHangs, {
        key: 'always',
      })();
      await within(docket.worker.runUntilFinished(), 3_000, 'both attempts to time out');
      await assert.rejects(always.result({ timeout: 2_000 }), {
        name: 'TimeoutError',
        message: 'task always exceeded timeout of 100ms',
      });
      assert.deepEqual(tasks.attempts, [1, 2]);
    } finally {
      await docket.close();
    }
  });

  it('lets ctx.timeout.extend() push the deadline, and remaining() counts down', async () => {
    const docket = await createDocket([TimeoutTasks]);
    try {
      const tasks = docket.module.get(TimeoutTasks);
      const extended = await docket.client.add(TimeoutTasks.prototype.extends)();
      const byDefault = await docket.client.add(TimeoutTasks.prototype.extendsByItsTimeout)();
      const untimed = await docket.client.add(TimeoutTasks.prototype.untimed)();
      await docket.worker.runUntilFinished();
      assert.equal(await extended.result({ timeout: 2_000 }), 'finished');
      assert.equal(await byDefault.result({ timeout: 2_000 }), 'finished');
      assert.equal(await untimed.result({ timeout: 2_000 }), Infinity);
      const [atStart, afterSleep, afterExtend, atEnd] = tasks.remaining;
      assert.ok(atStart <= 200 && atStart > 0, `remaining at start: ${atStart}`);
      assert.ok(afterSleep <= atStart - 50, `remaining ${atStart} then ${afterSleep}`);
      assert.ok(afterExtend >= afterSleep + 290, `extend(300): ${afterSleep} → ${afterExtend}`);
      assert.ok(atEnd < afterExtend, `remaining ${afterExtend} then ${atEnd}`);
    } finally {
      await docket.close();
    }
  });

  it('ends a cancelled task with a timeout as cancelled, never retried', async () => {
    const docket = await createDocket([TimeoutTasks]);
    try {
      const tasks = docket.module.get(TimeoutTasks);
      const execution = await docket.client.add(TimeoutTasks.prototype.cancellable)();
      const running = docket.worker.runUntilFinished();
      await within(tasks.started.promise, 5_000, 'the task to start');
      await docket.client.cancel(execution.key);
      await within(running, 5_000, 'the worker to finish');
      await assert.rejects(execution.result({ timeout: 2_000 }), ExecutionCancelledError);
      assert.equal(execution.state, 'cancelled');
      assert.deepEqual(tasks.attempts, [1]);
      assert.ok(tasks.signals[0].reason instanceof ExecutionCancelledError);
      assert.deepEqual(await docket.client.deadLetters(), []);
    } finally {
      await docket.close();
    }
  });
});
