import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, ExecutionCancelledError, type TaskContext } from '../../lib/index.js';
import { REDIS_ONLY, childWorker, uniqueName, useDocket } from '../utils.js';
import { CapturingLogger } from './observability/helpers.js';

/** Runs of every docket of this file, whichever app (and provider instance) ran them. */
const runs: { task: string; value: string; worker: string; startedAt: number }[] = [];

@Injectable()
class Tasks {
  /** Same name as the child process's task; here it ends at once. */
  @DocketTask()
  async hang(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    runs.push({ task: 'hang', value: label, worker: ctx.worker, startedAt: Date.now() });
    return `${ctx.worker}:${label}`;
  }

  @DocketTask()
  async long(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    runs.push({ task: 'long', value, worker: ctx.worker, startedAt: Date.now() });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return value;
  }
}

describe('redelivery', { timeout: 60_000 }, () => {
  it(
    'runs the task of a worker killed mid-task on another worker after redeliveryTimeout',
    { skip: REDIS_ONLY },
    async (t) => {
      runs.length = 0;
      const name = uniqueName('kill');
      const redeliveryTimeout = 800;
      const child = childWorker(t, name, 'child-worker', redeliveryTimeout);
      const docket = await useDocket(t, [Tasks], {
        name,
        worker: { name: 'survivor', redeliveryTimeout, minimumCheckInterval: 100 },
      });
      const addedAt = Date.now();
      const execution = await docket.client.add(Tasks.prototype.hang, { key: 'h' })('job');
      assert.equal(await child.started(), 'child-worker:job');
      const taken = await docket.client.getExecution('h');
      assert.equal(taken?.state, 'running');
      assert.equal(taken?.worker, 'child-worker');
      assert.equal((await docket.inspector.depths()).running, 1);

      const logger = new CapturingLogger();
      docket.module.useLogger(logger);
      const killedAt = Date.now();
      await child.killed();

      await docket.worker.runUntilFinished();
      assert.equal(await execution.result({ timeout: 5_000 }), 'survivor:job');
      // a redelivery is logged as one
      const lines = logger.lines.map((l) => `${l.level} ${l.message}`);
      assert.ok(
        lines.some((l) => /^warn redelivery: taking over 1 task\(s\) whose worker stopped/.test(l)),
        lines.join('\n'),
      );
      assert.ok(
        lines.some((l) => /^log ↪ hang\(h\) attempt 1 started, .* \(redelivered: /.test(l)),
        lines.join('\n'),
      );
      assert.equal(runs.length, 1);
      const [run] = runs;
      assert.equal(run.worker, 'survivor');
      // Not before the message could have sat idle for redeliveryTimeout: the child read it
      // after the add (1 ms for Redis's rounding). test/contract/consumer-group bounds it by
      // the idle time of the pending entry, which the child's lease renewals reset.
      const earliest = addedAt + redeliveryTimeout - 1;
      assert.ok(run.startedAt >= earliest, `redelivered ${earliest - run.startedAt}ms early`);
      assert.ok(
        run.startedAt - killedAt < 5_000,
        `redelivered ${run.startedAt - killedAt}ms after kill`,
      );
      const after = await docket.client.getExecution('h');
      assert.equal(after?.state, 'completed');
      assert.equal(after?.worker, 'survivor');
      // the child's start is kept as an earlier attempt, redelivered
      assert.equal(after?.earlierAttempts.length, 1);
      const [lost] = after?.earlierAttempts ?? [];
      assert.equal(lost.outcome, 'lost');
      assert.equal(lost.attempt, 1);
      assert.equal(lost.worker, 'child-worker');
      assert.ok(lost.startedAt && lost.startedAt.getTime() >= addedAt - 1);
      assert.ok(lost.endedAt.getTime() <= run.startedAt + 1);
      assert.equal(child.starts, 1, 'the child started the task more than once');
      assert.equal((await docket.inspector.depths()).running, 0);
    },
  );

  it(
    'skips the redelivered message of a task cancelled while its worker was dead',
    { skip: REDIS_ONLY },
    async (t) => {
      runs.length = 0;
      const name = uniqueName('kill');
      const child = childWorker(t, name, 'doomed-worker', 600);
      const docket = await useDocket(t, [Tasks], {
        name,
        worker: { name: 'heir', redeliveryTimeout: 600, minimumCheckInterval: 100 },
      });
      const execution = await docket.client.add(Tasks.prototype.hang, { key: 'c' })('job');
      assert.equal(await child.started(), 'doomed-worker:job');
      await child.killed();
      await docket.client.cancel('c');
      assert.equal(
        (await docket.client.getExecution('c'))?.state,
        'running',
        'nobody could abort it yet',
      );
      await docket.worker.runUntilFinished();
      await assert.rejects(execution.result({ timeout: 5_000 }), ExecutionCancelledError);
      assert.deepEqual(runs, []);
      assert.equal((await docket.client.getExecution('c'))?.state, 'cancelled');
      assert.equal((await docket.inspector.depths()).running, 0);
    },
  );

  it('does not take a long task from a live worker that renews its lease', async (t) => {
    runs.length = 0;
    const name = uniqueName('lease');
    const options = (worker: string) => ({
      name,
      worker: { name: worker, redeliveryTimeout: 400, minimumCheckInterval: 50 },
    });
    const first = await useDocket(t, [Tasks], options('w1'));
    const second = await useDocket(t, [Tasks], options('w2'));
    void first.worker.runForever();
    void second.worker.runForever();
    const execution = await first.client.add(Tasks.prototype.long, { key: 'l' })('slow');
    assert.equal(await execution.result({ timeout: 10_000 }), 'slow');
    assert.equal(runs.length, 1, `ran on ${runs.map((r) => r.worker).join(' and ')}`);
    assert.equal((await first.inspector.depths()).running, 0);
    assert.equal((await first.client.getExecution('l'))?.state, 'completed');
  });
});
