import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uniqueName, useDocket } from '../../utils.js';
import { runCli, target } from './helpers.js';

async function ok(args: string[]): Promise<string> {
  const result = await runCli(args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe('docket snapshot, clear and tasks', { timeout: 300_000, concurrency: true }, () => {
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
});
