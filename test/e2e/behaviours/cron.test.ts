import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type Execution, type TaskContext } from '../../../lib/index.js';
import { createDocket, uniqueName, type TestDocket } from '../../utils.js';
import { bootError, record, until, within } from './helpers.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

@Injectable()
class EveryMinuteTasks {
  runs = 0;

  @DocketTask({ cron: '* * * * *' })
  async everyMinute(): Promise<void> {
    this.runs++;
  }
}

@Injectable()
class DailyTasks {
  @DocketTask({ cron: { expression: '0 9 * * *', tz: 'Asia/Tokyo', automatic: true } })
  async morningInTokyo(): Promise<void> {}

  @DocketTask({ cron: { expression: '0 9 * * *' } })
  async morningInUtc(): Promise<void> {}

  @DocketTask({ cron: '@daily' })
  async nightly(): Promise<void> {}
}

@Injectable()
class ManualCronTasks {
  runs: unknown[][] = [];

  @DocketTask({ cron: { expression: '*/5 * * * *', automatic: false } })
  async everyFiveMinutes(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.runs.push(ctx.execution.args);
    return label;
  }
}

@Injectable()
class BadCronTasks {
  @DocketTask({ cron: 'every minute' })
  async broken(): Promise<void> {}
}

@Injectable()
class BadZoneTasks {
  @DocketTask({ cron: { expression: '0 9 * * *', tz: 'Mars/Olympus_Mons' } })
  async martian(): Promise<void> {}
}

/** When the snapshot lists `key` as a future task (epoch ms), or null when it does not. */
async function futureAt(docket: TestDocket, key: string): Promise<number | null> {
  const { future } = await docket.inspector.snapshot();
  return future.find((f) => f.key === key)?.when.getTime() ?? null;
}

describe('cron', () => {
  it('seeds an automatic cron at the next minute boundary, not now', async () => {
    const before = Date.now();
    const docket = await createDocket([EveryMinuteTasks], { worker: { autoStart: true } });
    try {
      const seeded: Execution = await until(
        () => docket.client.getExecution('everyMinute'),
        'the automatic cron task to be seeded',
      );
      const after = Date.now();
      const when = seeded.when.getTime();
      assert.equal(seeded.taskName, 'everyMinute');
      assert.equal(when % MINUTE, 0, `${seeded.when.toISOString()} is not on a minute boundary`);
      assert.ok(when > before, `seeded for ${seeded.when.toISOString()}, before the boot`);
      assert.ok(when <= after + MINUTE, `seeded for ${seeded.when.toISOString()}`);
      if (Date.now() < when - 500) {
        // Still before that minute: it waits in the queue and has not run.
        assert.equal(seeded.state, 'scheduled');
        assert.equal(await futureAt(docket, 'everyMinute'), when);
        assert.equal((await docket.inspector.depths()).schedule, 1);
        assert.equal(docket.module.get(EveryMinuteTasks).runs, 0);
      }
    } finally {
      await docket.close();
    }
  });

  it('reads the expression in its time zone (UTC by default), and knows @daily', async () => {
    const before = Date.now();
    const docket = await createDocket([DailyTasks], { worker: { autoStart: true } });
    try {
      const get = (key: string) =>
        until(() => docket.client.getExecution(key), `${key} to be seeded`);
      const tokyo = (await get('morningInTokyo')).when;
      const utc = (await get('morningInUtc')).when;
      const daily = (await get('nightly')).when;
      for (const [what, when] of [
        ['Tokyo', tokyo],
        ['UTC', utc],
        ['@daily', daily],
      ] as const) {
        assert.ok(when.getTime() > before, `${what}: ${when.toISOString()}`);
        assert.ok(when.getTime() <= before + DAY + MINUTE, `${what}: ${when.toISOString()}`);
        assert.equal(when.getUTCMinutes(), 0, `${what}: ${when.toISOString()}`);
        assert.equal(when.getUTCSeconds(), 0, `${what}: ${when.toISOString()}`);
      }
      assert.equal(tokyo.getUTCHours(), 0, `09:00 in Tokyo is 00:00 UTC: ${tokyo.toISOString()}`);
      assert.equal(utc.getUTCHours(), 9, `09:00 UTC: ${utc.toISOString()}`);
      assert.equal(daily.getUTCHours(), 0, `@daily: ${daily.toISOString()}`);
    } finally {
      await docket.close();
    }
  });

  it('runs a cron task added by hand now, then schedules its successor at the next match', async () => {
    const docket = await createDocket([ManualCronTasks]);
    let working: Promise<void> | undefined;
    try {
      const tasks = docket.module.get(ManualCronTasks);
      const execution = await docket.client.add(ManualCronTasks.prototype.everyFiveMinutes, {
        key: 'manual',
      })('by hand');
      assert.equal(execution.state, 'queued');
      const recording = await record(execution);
      working = docket.worker.runForever();
      const completed = await within(
        recording.when((e) => e.type === 'state' && e.state === 'completed'),
        5_000,
        'the run',
      );
      assert.deepEqual(tasks.runs, [['by hand']]);
      const successor = await docket.client.getExecution('manual');
      assert.ok(successor);
      assert.equal(successor.state, 'scheduled');
      assert.deepEqual(successor.args, ['by hand']);
      assert.equal(successor.attempt, 1);
      const when = successor.when.getTime();
      const done = (completed as { completedAt: Date }).completedAt.getTime();
      assert.equal(when % (5 * MINUTE), 0, `successor at ${successor.when.toISOString()}`);
      assert.ok(when > done && when <= done + 5 * MINUTE, successor.when.toISOString());
      assert.equal(await futureAt(docket, 'manual'), when);
      // automatic: false: nothing was seeded under the task's name.
      assert.equal(await docket.client.getExecution('everyFiveMinutes'), null);
    } finally {
      await docket.close();
      await working;
    }
  });

  it('fails at boot on a bad expression, naming the task', async () => {
    const error = await bootError([BadCronTasks], uniqueName());
    assert.equal(error.name, 'DocketConfigurationError');
    assert.match(error.message, /task "broken"/);
    assert.match(error.message, /BadCronTasks#broken/);
    assert.match(error.message, /every minute/);
  });

  it('fails at boot on an unknown time zone, naming the task', async () => {
    const error = await bootError([BadZoneTasks], uniqueName());
    assert.match(error.message, /task "martian"/);
    assert.match(error.message, /Mars\/Olympus_Mons/);
  });
});
