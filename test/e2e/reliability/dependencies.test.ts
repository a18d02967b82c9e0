import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type DependencyOutcome, type TaskContext } from '../../../lib/index.js';
import { REDIS_ONLY, childWorker, uniqueName, useDocket } from '../../utils.js';

@Injectable()
class Tasks {
  hangs: string[] = [];
  fanIns: Map<string, DependencyOutcome>[] = [];

  /** Same name as the child process's task; here it ends at once. */
  @DocketTask()
  async hang(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.hangs.push(label);
    return `${ctx.worker}:${label}`;
  }

  @DocketTask()
  async fanIn(@Ctx() ctx: TaskContext): Promise<number> {
    this.fanIns.push(await ctx.dependencies());
    return this.fanIns.length;
  }
}

describe('dependencies and a killed worker', { skip: REDIS_ONLY, timeout: 60_000 }, () => {
  it('a member whose worker is killed while it runs resolves the fan-in once, when it really ends', async (t) => {
    const name = uniqueName('deps-kill');
    const redeliveryTimeout = 800;
    const child = childWorker(t, name, 'doomed', redeliveryTimeout);
    const producer = await useDocket(t, [], { name, worker: false });
    const member = await producer.client.add('hang', { key: 'member' })('m');
    assert.equal(await child.started(), 'doomed:m');
    const fanIn = await producer.client.add('fanIn', {
      key: 'fan-in',
      after: [member, 'other'],
      onDependencyFailure: 'run',
    })();
    assert.equal(fanIn.state, 'scheduled');
    assert.equal((await fanIn.explain()).detail, 'waiting for member');
    await child.killed();

    const survivor = await useDocket(t, [Tasks], {
      name,
      worker: { name: 'survivor', redeliveryTimeout, minimumCheckInterval: 100 },
    });
    await survivor.worker.runUntilFinished();
    assert.equal(await fanIn.result({ timeout: 5_000 }), 1);
    const tasks = survivor.module.get(Tasks);
    assert.deepEqual(tasks.hangs, ['m']);
    assert.equal(tasks.fanIns.length, 1);
    assert.deepEqual(tasks.fanIns[0].get('member'), {
      state: 'completed',
      result: 'survivor:m',
    });
    assert.deepEqual(tasks.fanIns[0].get('other'), {
      state: 'failed',
      error: 'unknown dependency: other',
    });
  });
});
