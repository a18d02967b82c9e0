import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../../lib/index.js';
import { createDocket } from '../../utils.js';
import { record, states, within } from './helpers.js';

interface Call {
  attempt: number;
  attempts: number;
  /** When the handler started (epoch ms). */
  at: number;
  /** When the worker was told to run this attempt (the message's `when`). */
  when: number;
  /** When the handler threw (epoch ms), if it did. */
  thrownAt?: number;
  args: unknown[];
}

@Injectable()
class RetryTasks {
  calls: Call[] = [];

  private call(ctx: TaskContext, ...args: unknown[]): Call {
    const call: Call = {
      attempt: ctx.attempt,
      attempts: ctx.retry.attempts,
      at: Date.now(),
      when: ctx.execution.when.getTime(),
      args,
    };
    this.calls.push(call);
    return call;
  }

  private fail(call: Call, message: string): never {
    call.thrownAt = Date.now();
    throw new Error(message);
  }

  @DocketTask({ retry: { attempts: 3, delay: 100 } })
  async alwaysFails(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.fail(this.call(ctx, label), `boom ${ctx.attempt}`);
  }

  @DocketTask({ retry: { attempts: 5, delay: 25, backoff: 'exponential' } })
  async exponential(@Ctx() ctx: TaskContext): Promise<void> {
    this.fail(this.call(ctx), `exponential ${ctx.attempt}`);
  }

  @DocketTask({ retry: { attempts: 5, delay: 100, backoff: 'exponential', maxDelay: 100 } })
  async capped(@Ctx() ctx: TaskContext): Promise<void> {
    this.fail(this.call(ctx), `capped ${ctx.attempt}`);
  }

  @DocketTask({ retry: { attempts: Infinity, delay: 10 } })
  async forever(@Ctx() ctx: TaskContext): Promise<number> {
    const call = this.call(ctx);
    if (ctx.attempt < 4) this.fail(call, `not yet (${ctx.attempt})`);
    return ctx.attempt;
  }

  @DocketTask({ retry: { attempts: 3 } })
  async forced(@Ctx() ctx: TaskContext): Promise<string> {
    const call = this.call(ctx);
    call.thrownAt = Date.now();
    if (ctx.attempt === 1) ctx.retry.in(150);
    if (ctx.attempt === 2) ctx.retry.at(new Date(call.thrownAt + 100));
    return 'done';
  }

  @DocketTask()
  async forcedWithoutRetry(@Ctx() ctx: TaskContext): Promise<void> {
    this.call(ctx);
    ctx.retry.in(10);
  }

  @DocketTask({ retry: { attempts: 2 } })
  async alwaysForces(@Ctx() ctx: TaskContext): Promise<void> {
    this.call(ctx);
    ctx.retry.in(10);
  }

  @DocketTask({ retry: { attempts: 2, delay: 300 } })
  async failsOnce(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    const call = this.call(ctx, value);
    if (ctx.attempt === 1) this.fail(call, 'first attempt fails');
    return value;
  }
}

/** Gaps between one attempt's failure and the time the next attempt was scheduled for. */
function retryGaps(calls: Call[]): number[] {
  return calls.slice(1).map((call, i) => call.when - calls[i].thrownAt!);
}

describe('retry', () => {
  it('makes exactly `attempts` attempts, `delay` apart, and only the last one fails', async () => {
    const docket = await createDocket([RetryTasks]);
    try {
      const tasks = docket.module.get(RetryTasks);
      const execution = await docket.client.add(RetryTasks.prototype.alwaysFails)('x');
      const recording = await record(execution);
      await docket.worker.runUntilFinished();
      const events = await within(recording.events, 5_000, 'the end of the execution');

      assert.deepEqual(
        tasks.calls.map((c) => c.attempt),
        [1, 2, 3],
      );
      assert.ok(tasks.calls.every((c) => c.attempts === 3 && c.args[0] === 'x'));
      const elapsed = tasks.calls[2].at - tasks.calls[0].at;
      assert.ok(elapsed >= 200, `3 attempts 100 ms apart took ${elapsed}ms`);
      for (const gap of retryGaps(tasks.calls)) assert.ok(gap >= 100, `retry after ${gap}ms`);

      const seen = states(events);
      assert.equal(seen.filter((s) => s === 'running').length, 3, seen.join(' → '));
      assert.equal(seen.indexOf('failed'), seen.length - 1, seen.join(' → '));
      assert.ok(!seen.includes('completed'));

      await assert.rejects(execution.result({ timeout: 2_000 }), {
        name: 'Error',
        message: 'boom 3',
      });
      assert.equal(execution.attempt, 3);
      const dead = await docket.client.deadLetters();
      assert.equal(dead.length, 1);
      assert.equal(dead[0].key, execution.key);
      assert.equal(dead[0].taskName, 'alwaysFails');
      assert.deepEqual(dead[0].args, ['x']);
      assert.equal(dead[0].attempt, 3);
      assert.equal(dead[0].error, 'Error: boom 3');
    } finally {
      await docket.close();
    }
  });

  it('doubles an exponential delay after each attempt (25, 50, 100, 200 ms)', async () => {
    const docket = await createDocket([RetryTasks]);
    try {
      const tasks = docket.module.get(RetryTasks);
      const execution = await docket.client.add(RetryTasks.prototype.exponential)();
      await docket.worker.runUntilFinished();
      await assert.rejects(execution.result({ timeout: 2_000 }), { message: 'exponential 5' });
      assert.deepEqual(
        tasks.calls.map((c) => c.attempt),
        [1, 2, 3, 4, 5],
      );
      const elapsed = tasks.calls[4].at - tasks.calls[0].at;
      assert.ok(elapsed >= 375, `5 exponential attempts from 25 ms took ${elapsed}ms`);
      const gaps = retryGaps(tasks.calls);
      [25, 50, 100, 200].forEach((delay, i) =>
        assert.ok(gaps[i] >= delay, `retry ${i + 1} after ${gaps[i]}ms, expected ≥ ${delay}ms`),
      );
    } finally {
      await docket.close();
    }
  });

  it('caps an exponential delay at maxDelay', async () => {
    const docket = await createDocket([RetryTasks]);
    try {
      const tasks = docket.module.get(RetryTasks);
      const execution = await docket.client.add(RetryTasks.prototype.capped)();
      await docket.worker.runUntilFinished();
      await assert.rejects(execution.result({ timeout: 2_000 }), { message: 'capped 5' });
      assert.equal(tasks.calls.length, 5);
      // Uncapped, the delays would be 100, 200, 400 and 800 ms.
      for (const gap of retryGaps(tasks.calls)) {
        assert.ok(gap >= 100 && gap < 200, `retry scheduled ${gap}ms after the failure`);
      }
    } finally {
      await docket.close();
    }
  });

  it('keeps going with attempts: Infinity until an attempt succeeds', async () => {
    const docket = await createDocket([RetryTasks]);
    try {
      const tasks = docket.module.get(RetryTasks);
      const execution = await docket.client.add(RetryTasks.prototype.forever)();
      await docket.worker.runUntilFinished();
      assert.equal(await execution.result({ timeout: 2_000 }), 4);
      assert.deepEqual(
        tasks.calls.map((c) => c.attempt),
        [1, 2, 3, 4],
      );
      assert.ok(tasks.calls.every((c) => c.attempts === Infinity));
      assert.equal(execution.state, 'completed');
      assert.deepEqual(await docket.client.deadLetters(), []);
    } finally {
      await docket.close();
    }
  });

  it('retries at the time ctx.retry.in() and ctx.retry.at() ask for', async () => {
    const docket = await createDocket([RetryTasks]);
    try {
      const tasks = docket.module.get(RetryTasks);
      const execution = await docket.client.add(RetryTasks.prototype.forced)();
      await docket.worker.runUntilFinished();
      assert.equal(await execution.result({ timeout: 2_000 }), 'done');
      assert.deepEqual(
        tasks.calls.map((c) => c.attempt),
        [1, 2, 3],
      );
      const [first, second, third] = tasks.calls;
      // The task has no retry delay: only the forced times can hold the attempts back.
      assert.ok(
        second.when >= first.thrownAt! + 150,
        `in(150): due ${second.when - first.thrownAt!}ms later`,
      );
      assert.ok(
        second.at >= first.thrownAt! + 150,
        `in(150): ran ${second.at - first.thrownAt!}ms later`,
      );
      assert.equal(third.when, second.thrownAt! + 100);
      assert.ok(third.at >= second.thrownAt! + 100);
    } finally {
      await docket.close();
    }
  });

  it('bounds a forced retry by attempts: a task without a retry option fails', async () => {
    const docket = await createDocket([RetryTasks]);
    try {
      const tasks = docket.module.get(RetryTasks);
      const once = await docket.client.add(RetryTasks.prototype.forcedWithoutRetry)();
      const twice = await docket.client.add(RetryTasks.prototype.alwaysForces)();
      await docket.worker.runUntilFinished();
      await assert.rejects(once.result({ timeout: 2_000 }), {
        message: 'a retry was requested but all 1 attempt(s) are used',
      });
      await assert.rejects(twice.result({ timeout: 2_000 }), {
        message: 'a retry was requested but all 2 attempt(s) are used',
      });
      assert.equal(once.state, 'failed');
      assert.deepEqual(tasks.calls.map((c) => `${c.attempt}/${c.attempts}`).sort(), [
        '1/1',
        '1/2',
        '2/2',
      ]);
    } finally {
      await docket.close();
    }
  });

  it('answers already_scheduled to an add of the key while its retry waits', async () => {
    const docket = await createDocket([RetryTasks]);
    try {
      const tasks = docket.module.get(RetryTasks);
      const add = docket.client.add(RetryTasks.prototype.failsOnce, { key: 'retrying' });
      const execution = await add('first');
      const recording = await record(execution);
      const running = docket.worker.runUntilFinished();
      // The retry is scheduled (state 'scheduled' after a run), 300 ms later.
      await within(
        recording.when(
          (e, i) =>
            e.type === 'state' &&
            e.state === 'scheduled' &&
            states(recording.seen.slice(0, i)).includes('running'),
        ),
        5_000,
        'the retry to be scheduled',
      );
      const again = await add('second');
      assert.equal(again.disposition, 'already_scheduled');
      assert.equal(again.state, 'scheduled');
      assert.equal((await docket.client.getExecution('retrying'))?.attempt, 2);
      await running;
      assert.equal(await execution.result({ timeout: 2_000 }), 'first');
      assert.deepEqual(
        tasks.calls.map((c) => [c.attempt, c.args[0]]),
        [
          [1, 'first'],
          [2, 'first'],
        ],
      );
    } finally {
      await docket.close();
    }
  });
});
