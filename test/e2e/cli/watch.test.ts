import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../../lib/index.js';
import { uniqueName, useDocket } from '../../utils.js';
import { CliProcess, errorLine, runCli, target } from './helpers.js';

@Injectable()
class Steps {
  @DocketTask()
  async steps(n: number, @Ctx() ctx: TaskContext): Promise<number> {
    await ctx.progress.setTotal(n);
    for (let i = 1; i <= n; i++) {
      await ctx.progress.setMessage(`step ${i}`);
      await ctx.progress.increment();
    }
    return n;
  }
}

describe('docket watch', { timeout: 300_000, concurrency: true }, () => {
  it('follows state and progress until the task completes, then exits 0', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [Steps], { name, worker: { minimumCheckInterval: 100 } });
    await docket.client.add(Steps.prototype.steps, { key: 'w1' })(3);
    const watch = new CliProcess(['watch', 'w1', ...target(name)]);
    t.after(() => watch.kill());
    await watch.waitForOutput(/ queued/);
    await docket.worker.runUntilFinished();
    const result = await watch.exited;
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `steps w1 in docket '${name}'`);
    assert.match(result.stdout, /^\d\d:\d\d:\d\d queued \(due (now|\d+(ms|s) ago)\)$/m);
    assert.match(result.stdout, /^\d\d:\d\d:\d\d running on \S+$/m);
    assert.match(result.stdout, /^█{10}░{20} 33% 1\/3 step 1$/m);
    assert.match(result.stdout, /^█{30} 100% 3\/3 step 3$/m);
    assert.match(lines.at(-1)!, /^\d\d:\d\d:\d\d completed after \d+(ms|s)$/);

    // A finished execution is shown once.
    const again = await runCli(['watch', 'w1', ...target(name)]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /completed after/);
  });

  it('shows the error of a failed task and exits 1', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: { minimumCheckInterval: 100 } });
    await docket.client.add('fail', { key: 'w2' })('boom');
    const watch = new CliProcess(['watch', 'w2', ...target(name)]);
    t.after(() => watch.kill());
    await watch.waitForOutput(/ queued/);
    await docket.worker.runUntilFinished();
    const result = await watch.exited;
    assert.equal(result.code, 1);
    assert.match(result.stdout, /failed after \d+(ms|s): Error: boom$/m);
  });

  it('answers an unknown key with one line and exit code 1', async () => {
    const name = uniqueName('cli');
    const result = await runCli(['watch', 'nope', ...target(name)]);
    assert.equal(result.code, 1);
    assert.equal(
      errorLine(result),
      `error: no task with key 'nope' in docket '${name}' (never added, or its record expired)`,
    );
  });
});
