import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { useDocket, waitFor } from '../utils.js';

class FlakyError extends Error {
  override name = 'FlakyError';
}

/** Throws from a named function, so that its stack names it. */
function failDeepInside(attempt: number): never {
  throw new FlakyError(`attempt ${attempt} broke`);
}

@Injectable()
class Tasks {
  @DocketTask({ retry: { attempts: 3, delay: 0 } })
  async flaky(succeedAt: number, @Ctx() ctx: TaskContext): Promise<string> {
    if (ctx.execution.attempt < succeedAt) failDeepInside(ctx.execution.attempt);
    return `done at ${ctx.execution.attempt}`;
  }

  @DocketTask({ retry: { attempts: 2, delay: 0 } })
  async later(@Ctx() ctx: TaskContext): Promise<void> {
    if (ctx.execution.attempt === 1) ctx.retry.in(50);
  }

  @DocketTask({ retry: { attempts: 23, delay: 0 } })
  async stubborn(@Ctx() ctx: TaskContext): Promise<void> {
    throw new Error(`no ${ctx.execution.attempt}`);
  }

  @DocketTask()
  async wordy(): Promise<void> {
    throw new Error('x'.repeat(10_000));
  }

  /** Fails its first attempt of every run, then succeeds; again every 50 ms, once asked to. */
  runs = 0;
  @DocketTask({ retry: { attempts: 2, delay: 0 }, perpetual: { every: 50, automatic: false } })
  async heartbeat(@Ctx() ctx: TaskContext): Promise<void> {
    if (ctx.execution.attempt === 1) throw new Error('first try');
    this.runs++;
  }
}

const OPTIONS = { worker: { name: 'attempts-worker', minimumCheckInterval: 100 } };

describe('earlier attempts and error stacks', { timeout: 30_000 }, () => {
  it('keep each retried failure with its worker, times, error, stack and retry time', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    const added = await docket.client.add(Tasks.prototype.flaky, { key: 'flaky-3' })(3);
    await docket.worker.runUntilFinished();
    assert.equal(await added.result({ timeout: 5_000 }), 'done at 3');
    const execution = await docket.client.getExecution('flaky-3');
    assert.ok(execution);
    assert.equal(execution.state, 'completed');
    assert.equal(execution.attempt, 3);
    assert.equal(execution.errorStack, undefined);
    const earlier = execution.earlierAttempts;
    assert.deepEqual(
      earlier.map((a) => [a.attempt, a.outcome, a.worker, a.error]),
      [
        [1, 'failed', 'attempts-worker', 'FlakyError: attempt 1 broke'],
        [2, 'failed', 'attempts-worker', 'FlakyError: attempt 2 broke'],
      ],
    );
    for (const a of earlier) {
      assert.match(a.errorStack ?? '', /^FlakyError: attempt \d broke\n\s+at failDeepInside/);
      assert.ok(a.startedAt && a.startedAt.getTime() <= a.endedAt.getTime());
      assert.ok(a.dueAt && a.dueAt.getTime() <= a.startedAt.getTime());
      // due when the worker decided (delay 0), which is after the start
      assert.ok(a.retryAt && a.retryAt.getTime() >= a.startedAt.getTime());
    }
    assert.ok(earlier[0].endedAt.getTime() <= earlier[1].startedAt!.getTime());
    assert.ok(earlier[1].endedAt.getTime() <= execution.startedAt!.getTime());
  });

  it('keep the last failure stack on the record and the dead letter', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.client.add(Tasks.prototype.flaky, { key: 'flaky-dead' })(99);
    await docket.worker.runUntilFinished();
    const execution = await docket.client.getExecution('flaky-dead');
    assert.ok(execution);
    assert.equal(execution.state, 'failed');
    assert.equal(execution.error, 'FlakyError: attempt 3 broke');
    assert.match(execution.errorStack ?? '', /^FlakyError: attempt 3 broke\n\s+at failDeepInside/);
    assert.deepEqual(
      execution.earlierAttempts.map((a) => a.attempt),
      [1, 2],
    );
    const letters = await docket.client.deadLetters();
    const letter = letters.find((l) => l.key === 'flaky-dead');
    assert.ok(letter);
    assert.match(letter.errorStack ?? '', /^FlakyError: attempt 3 broke\n\s+at failDeepInside/);
  });

  it('start a new execution of the key without the attempts of the last one', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.client.add(Tasks.prototype.flaky, { key: 'again' })(99);
    await docket.worker.runUntilFinished();
    assert.equal((await docket.client.getExecution('again'))?.earlierAttempts.length, 2);
    const second = await docket.client.add(Tasks.prototype.flaky, { key: 'again' })(1);
    await docket.worker.runUntilFinished();
    assert.equal(await second.result({ timeout: 5_000 }), 'done at 1');
    const execution = await docket.client.getExecution('again');
    assert.equal(execution?.state, 'completed');
    assert.deepEqual(execution?.earlierAttempts, []);
    assert.equal(execution?.errorStack, undefined);
    assert.equal(execution?.error, undefined);
  });

  it('keep the last 20, and a stack cut to 8 192 characters', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    await docket.client.add(Tasks.prototype.stubborn, { key: 'stubborn' })();
    await docket.client.add(Tasks.prototype.wordy, { key: 'wordy' })();
    await docket.worker.runUntilFinished();
    const stubborn = await docket.client.getExecution('stubborn');
    assert.equal(stubborn?.state, 'failed');
    // 22 earlier attempts, the last 20 kept: 3 … 22
    assert.deepEqual(
      stubborn?.earlierAttempts.map((a) => a.attempt),
      Array.from({ length: 20 }, (_, i) => i + 3),
    );
    assert.equal(stubborn?.earlierAttempts[0].error, 'Error: no 3');
    const wordy = await docket.client.getExecution('wordy');
    assert.equal(wordy?.errorStack?.length, 8_192);
    assert.ok(wordy?.errorStack?.startsWith('Error: xxx'));
    assert.ok(wordy?.errorStack?.endsWith('…'));
  });

  it("start a retried dead letter and a perpetual task's next run without them", async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.wordy, { key: 'dead' })();
    await docket.worker.runUntilFinished();
    assert.ok((await docket.client.getExecution('dead'))?.errorStack);
    // no worker runs now: the retried letter waits as a new execution
    assert.equal(await docket.client.retryDeadLetter('dead'), 1);
    const retried = await docket.client.getExecution('dead');
    assert.equal(retried?.state, 'queued');
    assert.equal(retried?.errorStack, undefined);
    assert.deepEqual(retried?.earlierAttempts, []);
    await docket.client.cancel('dead');

    await docket.client.add(Tasks.prototype.heartbeat, { key: 'beat' })();
    void docket.worker.runForever();
    await waitFor(() => tasks.runs >= 1, 'a run to succeed');
    // the successor of a run that needed two attempts: a new execution, its own attempts only
    const next = await waitFor(async () => {
      const e = await docket.client.getExecution('beat');
      return e && e.state !== 'completed' && e.attempt === 1 ? e : null;
    }, 'the successor');
    assert.deepEqual(next.earlierAttempts, []);
    assert.equal(next.errorStack, undefined);
  });

  it('keep a retry the handler asked for without a stack', async (t) => {
    const docket = await useDocket(t, [Tasks], OPTIONS);
    const added = await docket.client.add(Tasks.prototype.later, { key: 'later' })();
    await docket.worker.runUntilFinished();
    await added.result({ timeout: 5_000 });
    const execution = await docket.client.getExecution('later');
    assert.equal(execution?.earlierAttempts.length, 1);
    const [first] = execution?.earlierAttempts ?? [];
    assert.equal(first.outcome, 'failed');
    assert.match(first.error ?? '', /^ForcedRetry: retry requested for /);
    assert.equal(first.errorStack, undefined);
    assert.ok(first.startedAt && first.retryAt);
    assert.ok(first.retryAt.getTime() - first.startedAt.getTime() >= 50);
  });
});
