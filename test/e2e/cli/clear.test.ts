import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDIS_URL, uniqueName, useDocket } from '../../utils.js';
import { errorLine, runCli, runOk, target } from './helpers.js';

describe('docket clear', { timeout: 300_000, concurrency: true }, () => {
  it('says what it would remove, and refuses without a terminal or --yes', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    await docket.client.add('trace', { key: 'now-1' })('x');
    await docket.client.add('trace', { key: 'later-1', delay: 60_000 })('y');
    const secretUrl = REDIS_URL.replace('redis://', 'redis://:pw-s3cret@');
    const [refused, masked] = await Promise.all([
      runCli(['clear', '--url', REDIS_URL, '--docket', name]),
      runCli(['clear', '--url', secretUrl, '--docket', name]),
    ]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      errorLine(refused),
      `error: Clearing docket '${name}' on ${REDIS_URL} removes 2 tasks (1 queued, 1 scheduled); ` +
        'give --yes to go ahead (there is no terminal to ask on)',
    );
    assert.equal(refused.stdout, '');
    assert.deepEqual(await docket.inspector.counts(), {
      running: 0,
      queued: 1,
      scheduled: 1,
      held: 0,
    });

    // the URL in the plan never shows a password
    assert.match(errorLine(masked), /on redis:\/\/:\*\*\*@/);
    assert.ok(!`${masked.stdout}${masked.stderr}`.includes('pw-s3cret'), masked.stderr);

    const yes = await runOk(['clear', '-y', ...target(name)]);
    assert.match(
      yes,
      /^Clearing docket '.*' on .* removes 2 tasks .*\nCleared 2 tasks from docket/,
    );
    assert.equal((await docket.client.getExecution('now-1'))?.state, 'cancelled');

    // nothing left: --yes has nothing to do, and a script without --yes is still refused
    const [nothing, empty] = await Promise.all([
      runOk(['clear', '--yes', ...target(name)]),
      runCli(['clear', ...target(name)]),
    ]);
    assert.equal(
      nothing,
      `Nothing to clear in docket '${name}' on ${REDIS_URL}: no queued or scheduled task\n`,
    );
    assert.equal(empty.code, 2);
    assert.match(errorLine(empty), /removes 0 tasks .*give --yes/);
  });
});
