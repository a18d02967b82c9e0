import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../../lib/index.js';
import { clock } from '../../../lib/cli/format.js';
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

    // A finished execution is shown once, at the time it ended.
    const again = await runCli(['watch', 'w1', ...target(name)]);
    assert.equal(again.code, 0);
    const done = await docket.client.getExecution('w1');
    assert.match(again.stdout, new RegExp(`^${clock(done!.completedAt!)} completed after`, 'm'));
  });

  it('prints each state at the time it happened, not when watch saw it', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    const when = new Date(Date.now() - 3 * 3_600_000);
    assert.equal((await docket.client.add('trace', { key: 'old', when })('x')).state, 'queued');
    await docket.client.add('trace', { key: 'later', delay: 3_600_000 })('y');
    const old = new CliProcess(['watch', 'old', ...target(name)]);
    const later = new CliProcess(['watch', 'later', ...target(name)]);
    t.after(() => old.kill());
    t.after(() => later.kill());
    await old.waitForOutput(/ queued/);
    await later.waitForOutput(/ scheduled/);
    assert.equal(await docket.client.cancel('old'), 'cancelled');
    assert.equal(await docket.client.cancel('later'), 'cancelled');
    const [oldResult, laterResult] = await Promise.all([old.exited, later.exited]);
    const ended = async (key: string) =>
      clock((await docket.client.getExecution(key))!.completedAt!);

    // queued 3 hours ago: it became due (and queued) then
    const oldLines = oldResult.stdout.trimEnd().split('\n');
    assert.match(oldLines[1], new RegExp(`^${clock(when)} queued \\(due 3h( \\d+m)? ago\\)$`));
    assert.equal(oldLines[2], `${await ended('old')} cancelled`);
    // when a scheduled task was scheduled is not recorded: no time rather than a wrong one
    const laterLines = laterResult.stdout.trimEnd().split('\n');
    assert.match(laterLines[1], /^--:--:-- scheduled \(due in (59m \d+s|1h)\)$/);
    assert.equal(laterLines[2], `${await ended('later')} cancelled`);
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

  it('answers an unknown key with one line and exit code 1', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    await docket.client.add('trace')('hello');
    const result = await runCli(['watch', 'nope', ...target(name)]);
    assert.equal(result.code, 1);
    assert.equal(
      errorLine(result),
      `error: no task with key 'nope' in docket '${name}' (never added, or its record expired)`,
    );
  });
});
