// Garbage published on every channel the engine subscribes to is ignored with a warning:
// results still arrive, the worker goes on, no process crashes (SPEC §10).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { useDocket } from '../utils.js';
import { rawRedis } from './raw.js';

@Injectable()
class Tasks {
  @DocketTask()
  async echo(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    await ctx.progress.setTotal(2);
    await ctx.progress.increment();
    return value;
  }
}

describe('garbage on the docket channels', () => {
  it('is ignored: results arrive, the worker goes on, no process crashes', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const execution = await docket.client.add(Tasks.prototype.echo, { key: 'g' })('kept');
    const waiting = execution.result({ timeout: 10_000 });
    const events = execution.subscribe()[Symbol.asyncIterator]();
    await events.next();
    const redis = rawRedis();
    const prefix = `{${docket.name}}:`;
    try {
      for (const garbage of [
        'not json',
        '{"type":"state"}',
        '[1,2]',
        '{"type":"state","key":"g","state":"exploded"}',
        '',
      ]) {
        for (const channel of ['state:g', 'progress:g', 'cancel', 'wake', 'strikes']) {
          await redis.publish(`${prefix}${channel}`, garbage);
        }
      }
    } finally {
      redis.disconnect();
    }
    await docket.worker.runUntilFinished();
    assert.equal(await waiting, 'kept');
    const seen: string[] = [];
    for (let next = await events.next(); !next.done; next = await events.next()) {
      seen.push(next.value.type === 'state' ? next.value.state : `progress ${next.value.current}`);
    }
    assert.ok(!seen.includes('exploded' as never), seen.join(', '));
    assert.equal(seen.at(-1), 'completed');
    // a cancel of garbage keys cancelled nothing, and the docket still takes work
    const again = await docket.client.add(Tasks.prototype.echo)('again');
    await docket.worker.runUntilFinished();
    assert.equal(await again.result({ timeout: 2_000 }), 'again');
  });
});
