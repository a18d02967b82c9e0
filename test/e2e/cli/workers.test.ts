import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../../lib/index.js';
import { packageVersion } from '../../../lib/util/package-version.js';
import { REDIS_URL, uniqueName, useDocket, waitFor } from '../../utils.js';
import { runCli, runOk, target } from './helpers.js';

@Injectable()
class Flaky {
  failing = true;

  @DocketTask()
  async flaky(value: string): Promise<string> {
    if (this.failing) throw new Error(`not yet: ${value}`);
    return value;
  }
}

/** A worker's row: name, last seen, host, pid, version, uptime, slots, tasks. */
const ROW =
  /│ cli-test-worker │ (now|\d+(ms|s) ago) +│ .+ │ \d+ +│ [\d.]+ +│ [\dmsh ]+│ 10 +│ fail, flaky, sleep, trace │/;
const VERSION = packageVersion();

describe('docket workers and dead', { timeout: 300_000, concurrency: true }, () => {
  it('workers ls and workers for-task list live workers', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [Flaky], {
      name,
      worker: { name: 'cli-test-worker', autoStart: true, minimumCheckInterval: 100 },
    });
    await waitFor(async () => (await docket.client.workers()).length > 0, 'the heartbeat');
    const ls = await runOk(['workers', 'ls', ...target(name)]);
    assert.match(ls, ROW);
    const pid = new RegExp(`│ ${process.pid} +│ ${VERSION.replace(/\./g, '\\.')} +│ \\d`);
    assert.match(ls, pid, 'the pid, version and uptime of the worker (this test process)');
    assert.match(await runOk(['workers', 'for-task', 'flaky', ...target(name)]), /cli-test-worker/);
    assert.equal(
      await runOk(['workers', 'for-task', 'nothing', ...target(name)]),
      `No live worker runs nothing in docket '${name}'\n`,
    );
    const json = JSON.parse(await runOk(['workers', 'ls', '--json', ...target(name)])) as {
      name: string;
      tasks: string[];
    }[];
    assert.deepEqual(
      json.map((w) => w.name),
      ['cli-test-worker'],
    );
    // without a subcommand, workers lists them
    assert.match(await runOk(['workers', ...target(name)]), ROW);
    assert.deepEqual(
      (JSON.parse(await runOk(['workers', '--json', ...target(name)])) as { name: string }[]).map(
        (w) => w.name,
      ),
      ['cli-test-worker'],
    );
  });

  it('workers says so when no worker is alive', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    await docket.client.add('trace')('hello');
    assert.equal(
      await runOk(['workers', ...target(name)]),
      `No live workers in docket '${name}'\n`,
    );
  });

  it('dead ls shows a dead letter, dead retry runs it again, dead purge empties the set', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [Flaky], { name, worker: { minimumCheckInterval: 100 } });
    const flaky = docket.module.get(Flaky);
    const first = await docket.client.add(Flaky.prototype.flaky, { key: 'flaky-1' })('one');
    await docket.client.add(Flaky.prototype.flaky, { key: 'flaky-2' })('two');
    await docket.worker.runUntilFinished();
    await assert.rejects(first.result({ timeout: 2_000 }), /not yet: one/);

    const table = await runOk(['dead', 'ls', ...target(name)]);
    assert.match(table, /│ flaky-1 │ flaky │ "one" +│ Error: not yet: one │ 1 +│/);
    const json = JSON.parse(await runOk(['dead', 'ls', '--json', ...target(name)])) as {
      key: string;
      args: unknown[];
      error: string;
    }[];
    assert.deepEqual(
      json.map((l) => [l.key, l.args, l.error]),
      [
        ['flaky-1', ['one'], 'Error: not yet: one'],
        ['flaky-2', ['two'], 'Error: not yet: two'],
      ],
    );

    flaky.failing = false;
    assert.equal(
      await runOk(['dead', 'retry', 'flaky-1', ...target(name)]),
      `Retried 1 dead letter in docket '${name}'\n`,
    );
    const missing = await runCli(['dead', 'retry', 'flaky-1', ...target(name)]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: no dead letter with key 'flaky-1'/);
    await docket.worker.runUntilFinished();
    const again = await docket.client.getExecution('flaky-1');
    assert.equal(again?.state, 'completed');
    assert.equal(await again!.result({ timeout: 2_000 }), 'one');

    const refused = await runCli(['dead', 'purge', ...target(name)]);
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      `error: Purging docket '${name}' on ${REDIS_URL} deletes 1 dead letter; ` +
        'give --yes to go ahead (there is no terminal to ask on)\n',
    );
    assert.equal((await docket.client.deadLetters()).length, 1);
    assert.equal(
      await runOk(['dead', 'purge', '--yes', ...target(name)]),
      `Purging docket '${name}' on ${REDIS_URL} deletes 1 dead letter\n` +
        `Purged 1 dead letter from docket '${name}'\n`,
    );
    assert.equal(
      await runOk(['dead', 'purge', '-y', ...target(name)]),
      `Nothing to purge in docket '${name}' on ${REDIS_URL}: no dead letters\n`,
    );
    assert.equal(
      await runOk(['dead', 'ls', ...target(name)]),
      `No dead letters in docket '${name}'\n`,
    );
  });
});
