import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../../lib/index.js';
import { uniqueName, useDocket, waitFor } from '../../utils.js';
import { runCli, target } from './helpers.js';

@Injectable()
class Flaky {
  failing = true;

  @DocketTask()
  async flaky(value: string): Promise<string> {
    if (this.failing) throw new Error(`not yet: ${value}`);
    return value;
  }
}

async function ok(args: string[]): Promise<string> {
  const result = await runCli(args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe(
  'docket CLI: inspecting and steering a docket',
  { timeout: 300_000, concurrency: true },
  () => {
    it('snapshot shows future tasks as a table, as stats and as JSON', async (t) => {
      const name = uniqueName('cli');
      const docket = await useDocket(t, [], { name, worker: false });
      const soon = await docket.client.add('trace', { key: 'soon-1' })('hello');
      const later = await docket.client.add('sleep', { key: 'later-1', delay: 120_000 })(2);
      assert.equal(soon.disposition, 'scheduled');
      assert.equal(later.disposition, 'scheduled');

      const text = await ok(['snapshot', ...target(name)]);
      assert.match(text, new RegExp(`Docket '${name}'`));
      assert.match(text, /0 workers, 0 running, 2 waiting/);
      assert.match(text, /│ soon-1 +│ trace │ (now|\d+(ms|s) ago) +│/);
      assert.match(text, /│ later-1 +│ sleep │ in (1m \d+s|2m) +│/);

      const stats = await ok(['snapshot', '--stats', ...target(name)]);
      assert.match(stats, /By task/);
      assert.match(stats, /│ sleep +│ 1 +│ 0 +│ 1 +│ in /);

      const json = JSON.parse(await ok(['snapshot', '--json', '--stats', ...target(name)])) as {
        docket: string;
        totalTasks: number;
        future: { key: string; taskName: string; args: unknown[]; when: string }[];
        running: unknown[];
        stats: { task: string; total: number }[];
      };
      assert.equal(json.docket, name);
      assert.equal(json.totalTasks, 2);
      assert.deepEqual(
        json.future.map((f) => [f.key, f.taskName, f.args]),
        [
          ['soon-1', 'trace', ['hello']],
          ['later-1', 'sleep', [2]],
        ],
      );
      assert.equal(new Date(json.future[1].when).getTime(), later.when.getTime());
      assert.deepEqual(json.running, []);
      assert.deepEqual(json.stats.map((s) => [s.task, s.total]).sort(), [
        ['sleep', 1],
        ['trace', 1],
      ]);

      assert.equal(await ok(['clear', ...target(name)]), `Cleared 2 tasks from docket '${name}'\n`);
      assert.match(await ok(['snapshot', ...target(name)]), /0 running, 0 waiting/);
    });

    it('strike blocks adds in every process until restore', async (t) => {
      const name = uniqueName('cli');
      assert.equal(
        await ok(['strike', 'trace', 'message', '==', 'blocked', ...target(name)]),
        'Striking trace message == "blocked"\n',
      );
      assert.equal(
        await ok(['strike', '*', 'customerId', '==', 'int:7', ...target(name)]),
        'Striking (all tasks) customerId == 7\n',
      );
      assert.match(
        await ok(['tasks', 'trace', 'blocked', '--key', 'k1', ...target(name)]),
        new RegExp(
          `^Struck: trace task 'k1' matches a strike in docket '${name}' and was not added`,
        ),
      );
      assert.match(
        await ok(['tasks', 'trace', 'free', ...target(name)]),
        new RegExp(`^Added trace task '[0-9a-f-]{36}' to docket '${name}'`),
      );

      // A process that starts now loads the strikes written by the CLI.
      const docket = await useDocket(t, [], { name, worker: false });
      assert.equal((await docket.client.add('trace')('blocked')).disposition, 'struck');
      assert.equal((await docket.client.add('other')({ customerId: 7 })).disposition, 'scheduled');

      assert.equal(
        await ok(['restore', 'trace', 'message', '==', 'blocked', ...target(name)]),
        'Restoring trace message == "blocked"\n',
      );
      assert.match(
        await ok(['tasks', 'trace', 'blocked', '--key', 'k2', ...target(name)]),
        /^Added trace task 'k2'/,
      );
      await waitFor(
        async () => (await docket.client.add('trace')('blocked')).disposition === 'scheduled',
        'the restore to reach this process',
      );
    });

    it('strike takes typed values, between, and whole tasks', async () => {
      const name = uniqueName('cli');
      const lines = [
        [['strike', 'report'], 'Striking report'],
        [
          ['strike', 'report', 'amount', 'between', 'float:1.5', 'int:10'],
          'Striking report amount between 1.5 and 10',
        ],
        [['strike', 'report', 'urgent', '!=', 'bool:true'], 'Striking report urgent != true'],
        [
          ['strike', 'report', 'due', '<', 'date:2026-01-01T00:00:00Z'],
          'Striking report due < 2026-01-01T00:00:00.000Z',
        ],
        [['restore', 'report'], 'Restoring report'],
      ] as const;
      for (const [args, line] of lines) {
        assert.equal(await ok([...args, ...target(name)]), `${line}\n`);
      }
      const plain = await runCli(['strike', 'report', 'customerId', '==', '7', ...target(name)]);
      assert.equal(plain.code, 0);
      assert.match(plain.stderr, /note: 7 is the string "7"; write int:7/);
    });

    it('workers ls and workers for-task list live workers', async (t) => {
      const name = uniqueName('cli');
      const docket = await useDocket(t, [Flaky], {
        name,
        worker: { name: 'cli-test-worker', autoStart: true, minimumCheckInterval: 100 },
      });
      await waitFor(async () => (await docket.client.workers()).length > 0, 'the heartbeat');
      const ls = await ok(['workers', 'ls', ...target(name)]);
      assert.match(ls, /│ cli-test-worker │ (now|\d+(ms|s) ago) +│ fail, flaky, sleep, trace │/);
      assert.match(await ok(['workers', 'for-task', 'flaky', ...target(name)]), /cli-test-worker/);
      assert.equal(
        await ok(['workers', 'for-task', 'nothing', ...target(name)]),
        `No live worker runs nothing in docket '${name}'\n`,
      );
      const json = JSON.parse(await ok(['workers', 'ls', '--json', ...target(name)])) as {
        name: string;
        tasks: string[];
      }[];
      assert.deepEqual(
        json.map((w) => w.name),
        ['cli-test-worker'],
      );
      assert.equal(
        await ok(['workers', 'ls', ...target(uniqueName('cli'))]).then((s) =>
          s.startsWith('No live workers'),
        ),
        true,
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

      const table = await ok(['dead', 'ls', ...target(name)]);
      assert.match(table, /│ flaky-1 │ flaky │ "one" +│ Error: not yet: one │ 1 +│/);
      const json = JSON.parse(await ok(['dead', 'ls', '--json', ...target(name)])) as {
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
        await ok(['dead', 'retry', 'flaky-1', ...target(name)]),
        `Retried 1 dead letter in docket '${name}'\n`,
      );
      const missing = await runCli(['dead', 'retry', 'flaky-1', ...target(name)]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^error: no dead letter with key 'flaky-1'/);
      await docket.worker.runUntilFinished();
      const again = await docket.client.getExecution('flaky-1');
      assert.equal(again?.state, 'completed');
      assert.equal(await again!.result({ timeout: 2_000 }), 'one');

      assert.equal(
        await ok(['dead', 'purge', ...target(name)]),
        `Purged 1 dead letter from docket '${name}'\n`,
      );
      assert.equal(
        await ok(['dead', 'ls', ...target(name)]),
        `No dead letters in docket '${name}'\n`,
      );
    });

    it('tasks trace|fail|sleep add the built-in tasks and print their keys', async (t) => {
      const name = uniqueName('cli');
      const docket = await useDocket(t, [], { name, worker: false });
      const out = await ok([
        'tasks',
        'sleep',
        '0.5',
        '--delay',
        '1m',
        '--key',
        's1',
        ...target(name),
      ]);
      assert.equal(out, `Added sleep task 's1' to docket '${name}' (due in 1m)\n`);
      const sleep = await docket.client.getExecution('s1');
      assert.deepEqual(sleep?.args, [0.5]);
      assert.ok(sleep!.when.getTime() > Date.now() + 50_000);
      const fail = await ok(['tasks', 'fail', 'oops', ...target(name)]);
      const key = /'([0-9a-f-]{36})'/.exec(fail)?.[1];
      assert.ok(key, fail);
      assert.deepEqual((await docket.client.getExecution(key))?.args, ['oops']);
      assert.match(
        await ok(['tasks', 'sleep', '--key', 's1', ...target(name)]),
        /^Task key 's1' is already scheduled/,
      );
    });
  },
);
