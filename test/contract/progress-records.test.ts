// The progress hash is touched only when an execution wrote progress (runs field
// 'progressed'): a later attempt still starts with none, an ended one keeps it for
// executionTtl, and one that never wrote any leaves no progress key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { useDocket } from '../utils.js';
import { keyOf, runsHash, withRaw } from './raw.js';

@Injectable()
class Tasks {
  name = '';
  seen: (string | null)[] = [];

  @DocketTask({ retry: { attempts: 2, delay: 0 } })
  async twice(@Ctx() ctx: TaskContext): Promise<void> {
    // what the progress hash holds as this attempt starts
    this.seen.push(
      await withRaw((redis) => redis.hget(keyOf(this.name, `progress:${ctx.key}`), 'current')),
    );
    if (ctx.attempt === 1) {
      await ctx.progress.setTotal(10);
      await ctx.progress.increment(4);
      throw new Error('first attempt fails');
    }
    await ctx.progress.increment(2);
  }

  @DocketTask()
  async quiet(): Promise<void> {}
}

describe('progress records', { timeout: 30_000 }, () => {
  it('a retry starts without the progress of the attempt before, and the end keeps its own', async (t) => {
    const docket = await useDocket(t, [Tasks], { executionTtl: 60_000 });
    const tasks = docket.module.get(Tasks);
    tasks.name = docket.name;
    const execution = await docket.client.add(Tasks.prototype.twice, { key: 'twice' })();
    await docket.worker.runUntilFinished();
    await execution.result({ timeout: 10_000 });
    assert.deepEqual(tasks.seen, [null, null]);
    const current = await withRaw((redis) =>
      redis.hget(keyOf(docket.name, 'progress:twice'), 'current'),
    );
    assert.equal(current, '2');
    assert.equal((await runsHash(docket.name, 'twice')).progressed, '1');
    const ttl = await withRaw((redis) => redis.pttl(keyOf(docket.name, 'progress:twice')));
    assert.ok(ttl > 0 && ttl <= 60_000, `the progress expires with the record (pttl ${ttl})`);
  });

  it('an execution that wrote no progress has no progress key', async (t) => {
    const docket = await useDocket(t, [Tasks], { executionTtl: 60_000 });
    await docket.client.add(Tasks.prototype.quiet, { key: 'quiet' })();
    await docket.worker.runUntilFinished();
    const run = await runsHash(docket.name, 'quiet');
    assert.equal(run.state, 'completed');
    assert.equal(run.progressed, undefined);
    const exists = await withRaw((redis) => redis.exists(keyOf(docket.name, 'progress:quiet')));
    assert.equal(exists, 0);
  });
});
