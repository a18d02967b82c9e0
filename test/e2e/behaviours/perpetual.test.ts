import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../../lib/index.js';
import { createDocket, deferred } from '../../utils.js';
import {
  Timeline,
  assertSequential,
  closeAll,
  createDockets,
  sleep,
  whereIs,
  within,
} from './helpers.js';

interface Run {
  key: string;
  args: unknown[];
  startedAt: number;
  attempt: number;
}

function runOf(ctx: TaskContext): Run {
  return {
    key: ctx.key,
    args: ctx.execution.args,
    startedAt: ctx.execution.startedAt!.getTime(),
    attempt: ctx.attempt,
  };
}

@Injectable()
class PerpetualTasks {
  runs: Run[] = [];

  @DocketTask({ perpetual: { every: 50 } })
  async count(counter: number, @Ctx() ctx: TaskContext): Promise<number> {
    this.runs.push(runOf(ctx));
    ctx.perpetual.perpetuate(counter + 1);
    return counter;
  }

  @DocketTask({ perpetual: { every: 10 } })
  async stopsAfterTwo(n = 0, @Ctx() ctx?: TaskContext): Promise<void> {
    this.runs.push(runOf(ctx!));
    if (n === 1) ctx!.perpetual.cancel();
    else ctx!.perpetual.perpetuate(n + 1);
  }

  ends: number[] = [];

  @DocketTask({ perpetual: { every: 10 } })
  async movesItsNextRun(@Ctx() ctx: TaskContext): Promise<void> {
    this.runs.push(runOf(ctx));
    if (this.runs.length === 1) ctx.perpetual.in(200);
    this.ends.push(Date.now());
    if (this.runs.length === 2) ctx.perpetual.at(new Date(this.ends[1] + 150));
  }

  @DocketTask({ perpetual: { every: 10 } })
  async alwaysFails(@Ctx() ctx: TaskContext): Promise<void> {
    this.runs.push(runOf(ctx));
    throw new Error(`perpetual failure ${this.runs.length}`);
  }
}

/** Shared by the three apps of the automatic test (each has its own provider instance). */
const chain = {
  timeline: new Timeline(),
  runs: [] as Run[],
  /** Where the chain's key was (running, future, and how many tasks in all) while each run ran. */
  places: [] as { running: boolean; future: boolean; totalTasks: number }[],
  enough: deferred(),
};

@Injectable()
class AutomaticTasks {
  @DocketTask({ perpetual: { every: 100, automatic: true } })
  async everyTenth(@Ctx() ctx: TaskContext): Promise<void> {
    await chain.timeline.track(ctx.worker, async () => {
      chain.runs.push(runOf(ctx));
      chain.places.push(await whereIs(ctx.docket, ctx.key));
      await sleep(20);
    });
    if (chain.runs.length >= 6) chain.enough.resolve();
  }
}

describe('perpetual', () => {
  it('runs again every `every` ms with the arguments given to perpetuate()', async () => {
    const docket = await createDocket([PerpetualTasks]);
    try {
      const tasks = docket.module.get(PerpetualTasks);
      await docket.client.add(PerpetualTasks.prototype.count, { key: 'tick' })(0);
      await within(docket.worker.runAtMost({ tick: 3 }), 10_000, 'three runs');
      assert.deepEqual(
        tasks.runs.map((r) => [r.key, r.args]),
        [
          ['tick', [0]],
          ['tick', [1]],
          ['tick', [2]],
        ],
      );
      assert.ok(tasks.runs.every((r) => r.attempt === 1));
      for (let i = 1; i < tasks.runs.length; i++) {
        const gap = tasks.runs[i].startedAt - tasks.runs[i - 1].startedAt;
        assert.ok(gap >= 50, `run ${i + 1} started ${gap}ms after run ${i}`);
      }
      const last = await docket.client.getExecution('tick');
      assert.equal(last?.state, 'completed');
      assert.equal(await last?.result({ timeout: 1_000 }), 2);
      assert.deepEqual(await whereIs(docket.client, 'tick'), {
        running: false,
        future: false,
        totalTasks: 0,
      });
    } finally {
      await docket.close();
    }
  });

  it('ends the chain on ctx.perpetual.cancel()', async () => {
    const docket = await createDocket([PerpetualTasks]);
    try {
      const tasks = docket.module.get(PerpetualTasks);
      await docket.client.add(PerpetualTasks.prototype.stopsAfterTwo, { key: 'stops' })();
      await within(docket.worker.runUntilFinished(), 10_000, 'the chain to end by itself');
      assert.deepEqual(
        tasks.runs.map((r) => r.args),
        [[], [1]],
      );
      assert.equal((await docket.client.getExecution('stops'))?.state, 'completed');
      assert.deepEqual(await whereIs(docket.client, 'stops'), {
        running: false,
        future: false,
        totalTasks: 0,
      });
      const snapshot = await docket.client.snapshot();
      assert.equal(snapshot.totalTasks, 0);
      assert.deepEqual(snapshot.future, []);
    } finally {
      await docket.close();
    }
  });

  it('moves the next run with ctx.perpetual.in() and at()', async () => {
    const docket = await createDocket([PerpetualTasks]);
    try {
      const tasks = docket.module.get(PerpetualTasks);
      await docket.client.add(PerpetualTasks.prototype.movesItsNextRun, { key: 'moved' })();
      await within(docket.worker.runAtMost({ moved: 3 }), 10_000, 'three runs');
      assert.equal(tasks.runs.length, 3);
      const [, second, third] = tasks.runs;
      // every is 10 ms: only in(200) and at(+150) can hold the runs back that long.
      assert.ok(
        second.startedAt >= tasks.ends[0] + 200,
        `in(200): ${second.startedAt - tasks.ends[0]}ms`,
      );
      assert.ok(
        third.startedAt >= tasks.ends[1] + 150,
        `at(+150): ${third.startedAt - tasks.ends[1]}ms`,
      );
    } finally {
      await docket.close();
    }
  });

  it('continues after a failed run (no retry)', async () => {
    const docket = await createDocket([PerpetualTasks]);
    try {
      const tasks = docket.module.get(PerpetualTasks);
      await docket.client.add(PerpetualTasks.prototype.alwaysFails, { key: 'failing' })();
      await within(docket.worker.runAtMost({ failing: 3 }), 10_000, 'three runs');
      assert.equal(tasks.runs.length, 3);
      assert.ok(tasks.runs.every((r) => r.attempt === 1));
      const last = await docket.client.getExecution('failing');
      assert.equal(last?.state, 'failed');
      assert.equal(last?.error, 'Error: perpetual failure 3');
      assert.deepEqual(
        (await docket.client.deadLetters()).map((d) => d.error),
        ['Error: perpetual failure 1', 'Error: perpetual failure 2', 'Error: perpetual failure 3'],
      );
    } finally {
      await docket.close();
    }
  });

  it('keeps one chain of an automatic task that three workers start at once', async () => {
    const apps = await createDockets(3, [AutomaticTasks], { worker: { autoStart: true } });
    const name = apps[0].name;
    try {
      await within(chain.enough.promise, 20_000, 'six runs of the automatic task');
    } finally {
      await closeAll(apps);
    }
    assert.ok(chain.runs.every((r) => r.key === 'everyTenth' && r.args.length === 0));
    assertSequential(chain.timeline.intervals, 'runs of the automatic chain');
    for (let i = 1; i < chain.runs.length; i++) {
      const gap = chain.runs[i].startedAt - chain.runs[i - 1].startedAt;
      assert.ok(gap >= 100, `run ${i + 1} started ${gap}ms after run ${i}`);
    }
    // While each run ran, its own message was the only task of the docket (the key's only
    // message, and nothing of it in the queue).
    assert.deepEqual(
      chain.places,
      chain.places.map(() => ({ running: true, future: false, totalTasks: 1 })),
    );
    const observer = await createDocket([], { name, worker: false });
    try {
      const after = await whereIs(observer.client, 'everyTenth');
      assert.ok(after.totalTasks <= 1, JSON.stringify(after));
    } finally {
      await observer.close();
    }
  });
});
