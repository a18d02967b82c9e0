import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable, Logger } from '@nestjs/common';
import { Ctx, DocketClient, DocketTask, type TaskContext } from '../../../lib/index.js';
import { createDocket } from '../../utils.js';
import { within } from './helpers.js';

interface Seen {
  ctx: TaskContext;
  /** What the context said while the handler ran. */
  state: string;
  aborted: boolean;
  args: unknown[];
}

@Injectable()
class ContextTasks {
  seen: Seen[] = [];
  children: string[] = [];

  private see(ctx: TaskContext, ...args: unknown[]): void {
    this.seen.push({ ctx, state: ctx.execution.state, aborted: ctx.signal.aborted, args });
  }

  @DocketTask()
  async inspect(userId: string, count: number, @Ctx() ctx: TaskContext): Promise<void> {
    this.see(ctx, userId, count);
  }

  @DocketTask()
  async parent(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    const child = await ctx.docket.add(ContextTasks.prototype.child, { key: `${ctx.key}.child` })(
      `${label}!`,
    );
    return child.key;
  }

  @DocketTask()
  async child(label: string): Promise<string> {
    this.children.push(label);
    return label;
  }

  @DocketTask()
  async middle(first: string, @Ctx() ctx: TaskContext, second = 5): Promise<string> {
    this.see(ctx, first, second);
    return `${first}-${second}`;
  }

  @DocketTask()
  async badTiming(call: string, @Ctx() ctx: TaskContext): Promise<void> {
    if (call === 'retry.in') ctx.retry.in(Infinity);
    if (call === 'retry.at') ctx.retry.at(new Date(NaN));
    if (call === 'perpetual.in') ctx.perpetual.in(Number.NaN);
    if (call === 'perpetual.at') ctx.perpetual.at(new Date('never'));
  }

  @DocketTask()
  async defaults(first: string, second = 'default', @Ctx() ctx?: TaskContext): Promise<string> {
    this.see(ctx!, first, second);
    return `${first}-${second}`;
  }
}

describe('context', () => {
  it('a retry or next run at no valid time fails the task with a TypeError naming the call', async () => {
    const docket = await createDocket([ContextTasks]);
    try {
      const calls = ['retry.in', 'retry.at', 'perpetual.in', 'perpetual.at'];
      const executions = await Promise.all(
        calls.map((call) => docket.client.add(ContextTasks.prototype.badTiming)(call)),
      );
      await within(docket.worker.runUntilFinished(), 5_000, 'the tasks');
      for (const [i, execution] of executions.entries()) {
        await execution.sync();
        assert.equal(execution.state, 'failed', calls[i]);
        assert.match(
          execution.error ?? '',
          new RegExp(`TypeError: ctx\\.${calls[i].replace('.', '\\.')}\\(`),
        );
      }
      assert.deepEqual((await docket.client.snapshot()).future, [], 'nothing was scheduled');
    } finally {
      await docket.close();
    }
  });

  it('tells the handler its key, attempt, execution, client, worker, logger and signal', async () => {
    const docket = await createDocket([ContextTasks], { worker: { name: 'ctx-worker' } });
    try {
      const tasks = docket.module.get(ContextTasks);
      const execution = await docket.client.add(ContextTasks.prototype.inspect, { key: 'k1' })(
        'u1',
        3,
      );
      await docket.worker.runUntilFinished();
      await execution.result({ timeout: 2_000 });
      assert.equal(tasks.seen.length, 1);
      const [{ ctx, state, aborted, args }] = tasks.seen;
      assert.deepEqual(args, ['u1', 3]);
      assert.equal(ctx.key, 'k1');
      assert.equal(ctx.attempt, 1);
      assert.equal(ctx.retry.attempt, 1);
      assert.equal(ctx.retry.attempts, 1);
      assert.equal(ctx.execution.key, 'k1');
      assert.equal(ctx.execution.taskName, 'inspect');
      assert.deepEqual(ctx.execution.args, ['u1', 3]);
      assert.equal(ctx.execution.attempt, 1);
      assert.equal(state, 'running');
      assert.equal(ctx.execution.worker, 'ctx-worker');
      assert.ok(ctx.execution.startedAt instanceof Date);
      assert.equal(ctx.docket, docket.client);
      assert.equal(ctx.docket, docket.module.get(DocketClient));
      assert.equal(ctx.worker, 'ctx-worker');
      assert.equal(ctx.worker, docket.worker.name);
      assert.ok(ctx.logger instanceof Logger);
      const context = String((ctx.logger as unknown as { context?: string }).context);
      assert.ok(context.includes('inspect') && context.includes('k1'), context);
      assert.ok(ctx.signal instanceof AbortSignal);
      assert.equal(aborted, false);
      assert.equal(ctx.timeout.remaining(), Infinity);
    } finally {
      await docket.close();
    }
  });

  it('lets a task add another task through ctx.docket', async () => {
    const docket = await createDocket([ContextTasks]);
    try {
      const tasks = docket.module.get(ContextTasks);
      const parent = await docket.client.add(ContextTasks.prototype.parent, { key: 'p' })('hi');
      await within(docket.worker.runUntilFinished(), 5_000, 'parent and child');
      assert.equal(await parent.result({ timeout: 2_000 }), 'p.child');
      assert.deepEqual(tasks.children, ['hi!']);
      const child = await docket.client.getExecution('p.child');
      assert.equal(child?.state, 'completed');
      assert.equal(await child?.result({ timeout: 2_000 }), 'hi!');
    } finally {
      await docket.close();
    }
  });

  it('gives @Ctx() anywhere in the parameter list the context, and lines up the arguments', async () => {
    const docket = await createDocket([ContextTasks]);
    try {
      const tasks = docket.module.get(ContextTasks);
      const both = await docket.client.add('middle', { key: 'both' })('a', 2);
      const onlyFirst = await docket.client.add('middle', { key: 'first' })('b');
      const last = await docket.client.add('defaults', { key: 'last' })('c');
      await docket.worker.runUntilFinished();
      assert.equal(await both.result({ timeout: 2_000 }), 'a-2');
      assert.equal(await onlyFirst.result({ timeout: 2_000 }), 'b-5');
      assert.equal(await last.result({ timeout: 2_000 }), 'c-default');
      const byKey = new Map(tasks.seen.map((s) => [s.ctx.key, s]));
      assert.deepEqual(byKey.get('both')?.args, ['a', 2]);
      assert.deepEqual(byKey.get('both')?.ctx.execution.args, ['a', 2]);
      assert.equal(byKey.get('both')?.ctx.execution.taskName, 'middle');
      assert.deepEqual(byKey.get('first')?.args, ['b', 5]);
      assert.equal(byKey.get('last')?.ctx.execution.taskName, 'defaults');

      // Options that name an argument see the parameters without the context one.
      await docket.client.strike({ task: 'middle', parameter: 'second', value: 2 });
      assert.equal((await docket.client.add('middle')('x', 2)).disposition, 'struck');
      assert.equal((await docket.client.add('middle')('x', 3)).disposition, 'scheduled');
      await docket.worker.runUntilFinished();
    } finally {
      await docket.close();
    }
  });
});
