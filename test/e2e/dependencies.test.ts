import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DependencyFailedError,
  DocketTask,
  type DependencyOutcome,
  type TaskContext,
} from '../../lib/index.js';
import { deferred, places, useDocket, waitFor } from '../utils.js';

@Injectable()
class FlowTasks {
  runs: string[] = [];
  seen = new Map<string, Map<string, DependencyOutcome>>();
  gate = deferred();
  fanIns = 0;

  @DocketTask()
  async value(n: number, @Ctx() ctx: TaskContext): Promise<number> {
    this.runs.push(ctx.key);
    return n;
  }

  /** Adds one to the sum of what its dependencies returned. */
  @DocketTask()
  async plusOne(@Ctx() ctx: TaskContext): Promise<number> {
    this.runs.push(ctx.key);
    const outcomes = await ctx.dependencies();
    this.seen.set(ctx.key, outcomes);
    let sum = 0;
    for (const o of outcomes.values()) if (o.state === 'completed') sum += o.result as number;
    return sum + 1;
  }

  /** Sums what its dependencies returned (a fan-in). */
  @DocketTask()
  async sum(@Ctx() ctx: TaskContext): Promise<number> {
    this.fanIns++;
    this.runs.push(ctx.key);
    const outcomes = await ctx.dependencies();
    this.seen.set(ctx.key, outcomes);
    let sum = 0;
    for (const o of outcomes.values()) if (o.state === 'completed') sum += o.result as number;
    return sum;
  }

  @DocketTask()
  async boom(@Ctx() ctx: TaskContext): Promise<never> {
    this.runs.push(ctx.key);
    throw new Error('boom');
  }

  /** Waits for the test to open the gate. */
  @DocketTask()
  async gated(@Ctx() ctx: TaskContext): Promise<string> {
    this.runs.push(ctx.key);
    await this.gate.promise;
    return 'opened';
  }

  /** Fails its first attempt, completes its second. */
  @DocketTask({ retry: { attempts: 2, delay: 10 } })
  async flaky(@Ctx() ctx: TaskContext): Promise<string> {
    this.runs.push(`${ctx.key}#${ctx.attempt}`);
    if (ctx.attempt === 1) throw new Error('first attempt fails');
    return 'second';
  }
}

const AUTO = { worker: { autoStart: true, minimumCheckInterval: 50 } };

describe('dependencies (after)', { timeout: 60_000 }, () => {
  it('a chain of three passes results along', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    const a = await client.add(FlowTasks.prototype.value, { key: 'a', delay: 200 })(1);
    const b = await client.add(FlowTasks.prototype.plusOne, { key: 'b', after: a })();
    const c = await client.add(FlowTasks.prototype.plusOne, { key: 'c', after: 'b' })();
    assert.equal(b.state, 'scheduled');
    assert.deepEqual(b.after, ['a']);
    assert.equal(await c.result({ timeout: 10_000 }), 3);
    assert.equal(await b.result({ timeout: 1_000 }), 2);
    assert.deepEqual(tasks.runs, ['a', 'b', 'c']);
    assert.deepEqual([...tasks.seen.get('c')!], [['b', { state: 'completed', result: 2 }]]);
    await c.sync();
    assert.deepEqual(c.after, undefined, 'an ended waiter lets go of its dependencies');
  });

  it('a fan-out of 100 with a fan-in runs the fan-in once, after the last, with every outcome', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    const members = await client.addMany(
      FlowTasks.prototype.value,
      Array.from({ length: 100 }, (_, i) => [i] as [number]),
      { delay: 100 },
    );
    const fanIn = await client.add(FlowTasks.prototype.sum, { key: 'fan-in', after: members })();
    assert.equal(await fanIn.result({ timeout: 20_000 }), (99 * 100) / 2);
    assert.equal(tasks.fanIns, 1);
    assert.equal(tasks.runs.at(-1), 'fan-in');
    assert.equal(tasks.runs.length, 101);
    const seen = tasks.seen.get('fan-in')!;
    assert.deepEqual(
      [...seen.keys()],
      members.map((m) => m.key),
    );
    members.forEach((m, i) => assert.deepEqual(seen.get(m.key), { state: 'completed', result: i }));
  });

  it('a failed member fails the fan-in by default, and down a chain', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    await client.add(FlowTasks.prototype.value, { key: 'ok', delay: 100 })(1);
    await client.add(FlowTasks.prototype.boom, { key: 'bad', delay: 100 })();
    const fanIn = await client.add(FlowTasks.prototype.sum, { key: 'fi', after: ['ok', 'bad'] })();
    const next = await client.add(FlowTasks.prototype.sum, { key: 'next', after: 'fi' })();
    await assert.rejects(fanIn.result({ timeout: 10_000 }), (error: Error) => {
      assert.ok(error instanceof DependencyFailedError);
      assert.equal(error.message, 'dependency bad failed: Error: boom');
      return true;
    });
    await assert.rejects(next.result({ timeout: 5_000 }), (error: Error) => {
      assert.ok(error instanceof DependencyFailedError);
      assert.match(error.message, /^dependency fi failed: DependencyFailedError: dependency bad/);
      return true;
    });
    assert.equal(tasks.fanIns, 0);
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
  });

  it("with onDependencyFailure 'run' the fan-in runs and reads the failure", async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    await client.add(FlowTasks.prototype.value, { key: 'ok', delay: 100 })(5);
    await client.add(FlowTasks.prototype.boom, { key: 'bad', delay: 100 })();
    const fanIn = await client.add(FlowTasks.prototype.sum, {
      key: 'fi',
      after: ['ok', 'bad'],
      onDependencyFailure: 'run',
    })();
    assert.equal(await fanIn.result({ timeout: 10_000 }), 5);
    assert.deepEqual(
      [...tasks.seen.get('fi')!],
      [
        ['ok', { state: 'completed', result: 5 }],
        ['bad', { state: 'failed', error: 'Error: boom' }],
      ],
    );
  });

  it('a waiter shows what it waits for, and cancelling it works as for a scheduled task', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    await client.add(FlowTasks.prototype.gated, { key: 'slow' })();
    await waitFor(() => tasks.runs.includes('slow'), 'slow to start');
    const waiter = await client.add(FlowTasks.prototype.sum, {
      key: 'w',
      after: ['slow', 'nope'],
      onDependencyFailure: 'run',
    })();
    const explanation = await waiter.explain();
    assert.equal(explanation.state, 'scheduled');
    assert.equal(explanation.reason, 'dependencies');
    assert.equal(explanation.detail, 'waiting for slow');
    const snapshot = await client.snapshot();
    assert.deepEqual(
      snapshot.future.map((f) => [f.key, f.state, f.waitingFor]),
      [['w', 'scheduled', ['slow']]],
    );
    assert.equal(snapshot.counts.scheduled, 1);
    const listed = await docket.inspector.tasks({ states: ['scheduled'] });
    assert.equal(listed.total, 1);
    assert.deepEqual(
      listed.tasks.map((f) => [f.key, f.state, f.waitingFor]),
      [['w', 'scheduled', ['slow']]],
    );
    assert.equal(await client.cancel('w'), 'cancelled');
    assert.equal((await client.getExecution('w'))?.state, 'cancelled');
    assert.equal((await client.snapshot()).future.length, 0);
    tasks.gate.resolve();
    assert.equal(await (await client.getExecution('slow'))!.result({ timeout: 5_000 }), 'opened');
    // the end of slow tells its waiters in the same call: a cancelled one stays cancelled
    assert.equal((await client.getExecution('w'))?.state, 'cancelled');
    assert.equal(tasks.fanIns, 0);
  });

  it('a cancelled dependency fails its waiter', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const { client } = docket;
    await client.add(FlowTasks.prototype.value, { key: 'later', delay: 60_000 })(1);
    const waiter = await client.add(FlowTasks.prototype.sum, { key: 'w', after: 'later' })();
    assert.equal(await client.cancel('later'), 'cancelled');
    await assert.rejects(waiter.result({ timeout: 5_000 }), {
      name: 'DependencyFailedError',
      message: 'dependency later cancelled',
    });
  });

  it('refuses a replace that would wait for itself', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const { client } = docket;
    await client.add(FlowTasks.prototype.value, { key: 'x', delay: 60_000 })(1);
    await client.add(FlowTasks.prototype.sum, { key: 'y', after: 'x' })();
    await client.add(FlowTasks.prototype.sum, { key: 'z', after: 'y' })();
    await assert.rejects(
      client.replace(FlowTasks.prototype.sum, { key: 'x', after: 'z' })(),
      (error: Error) => error instanceof TypeError && /cycle/.test(error.message),
    );
    await assert.rejects(
      client.replace(FlowTasks.prototype.sum, { key: 'q', after: ['x', 'q'] })(),
      TypeError,
    );
    // nothing changed: x still waits for its time, y and z for x
    assert.equal((await client.getExecution('x'))?.state, 'scheduled');
    assert.equal((await (await client.getExecution('z'))!.explain()).detail, 'waiting for y');
    assert.equal(await client.getExecution('q'), null);
  });

  it('an unknown key counts as a failed dependency', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    const failing = await client.add(FlowTasks.prototype.sum, { key: 'f', after: 'ghost' })();
    assert.equal(failing.state, 'failed');
    await assert.rejects(failing.result({ timeout: 2_000 }), {
      name: 'DependencyFailedError',
      message: 'dependency ghost failed: unknown dependency: ghost',
    });
    const running = await client.add(FlowTasks.prototype.sum, {
      key: 'r',
      after: 'ghost',
      onDependencyFailure: 'run',
    })();
    assert.equal(await running.result({ timeout: 5_000 }), 0);
    assert.deepEqual(
      [...tasks.seen.get('r')!],
      [['ghost', { state: 'failed', error: 'unknown dependency: ghost' }]],
    );
  });

  it('an ended key counts as ended, with its outcome', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    const done = await client.add(FlowTasks.prototype.value, { key: 'done' })(7);
    await done.result({ timeout: 5_000 });
    const waiter = await client.add(FlowTasks.prototype.plusOne, { key: 'w', after: 'done' })();
    assert.equal(await waiter.result({ timeout: 5_000 }), 8);
    assert.deepEqual([...tasks.seen.get('w')!], [['done', { state: 'completed', result: 7 }]]);
  });

  it('a retry is not an end: the waiter is released once, by the attempt that ends', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    await client.add(FlowTasks.prototype.flaky, { key: 'f', delay: 100 })();
    const waiter = await client.add(FlowTasks.prototype.sum, { key: 'w', after: 'f' })();
    await waiter.result({ timeout: 10_000 });
    assert.deepEqual(tasks.runs, ['f#1', 'f#2', 'w']);
    assert.deepEqual([...tasks.seen.get('w')!], [['f', { state: 'completed', result: 'second' }]]);
  });

  it('a later when still holds after the dependencies end', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const { client } = docket;
    const when = new Date(Date.now() + 60_000);
    await client.add(FlowTasks.prototype.value, { key: 'd' })(1);
    const waiter = await client.add(FlowTasks.prototype.sum, { key: 'w', after: 'd', when })();
    await waitFor(async () => (await client.getExecution('d'))?.state === 'completed', 'd to end');
    const explanation = await waiter.explain();
    assert.equal(explanation.reason, 'scheduled');
    assert.equal(explanation.until?.getTime(), when.getTime());
  });

  it('many waiters of one key are all released, a bounded number per call', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    await client.add(FlowTasks.prototype.value, { key: 'root', delay: 300 })(1);
    const waiters = await client.addMany(
      FlowTasks.prototype.sum,
      Array.from({ length: 250 }, () => [] as []),
      { after: 'root' },
    );
    const results = await Promise.all(waiters.map((w) => w.result({ timeout: 20_000 })));
    assert.deepEqual(new Set(results), new Set([1]));
    assert.equal(tasks.fanIns, 250);
  });

  it('an agenda takes after too, for keys of the same agenda', async (t) => {
    const docket = await useDocket(t, [FlowTasks], AUTO);
    const { client } = docket;
    const [, , fanIn] = await client
      .agenda()
      .add(FlowTasks.prototype.value, { key: 'a1' })(1)
      .add(FlowTasks.prototype.value, { key: 'a2' })(2)
      .add(FlowTasks.prototype.sum, { key: 'total', after: ['a1', 'a2'] })()
      .scatter({ over: 100 });
    assert.equal(fanIn.state, 'scheduled');
    assert.deepEqual(fanIn.after, ['a1', 'a2']);
    assert.equal(await fanIn.result({ timeout: 5_000 }), 3);
  });

  it('runUntilFinished waits for waiters the scheduler is still releasing', async (t) => {
    const docket = await useDocket(t, [FlowTasks], { worker: { minimumCheckInterval: 50 } });
    const tasks = docket.module.get(FlowTasks);
    const { client } = docket;
    await client.add(FlowTasks.prototype.value, { key: 'root' })(1);
    await client.addMany(
      FlowTasks.prototype.sum,
      Array.from({ length: 250 }, () => [] as []),
      { after: 'root' },
    );
    await docket.worker.runUntilFinished();
    assert.equal(tasks.fanIns, 250);
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
  });
});
