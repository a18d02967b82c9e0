import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDIS_URL, uniqueName, useDocket } from '../../utils.js';
import { errorLine, runCli, runOk, target } from './helpers.js';

/** The table rows of the section that starts with `title` in a snapshot's text. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n${title} (`);
  assert.ok(start >= 0, `no section ${title} in:\n${text}`);
  const end = text.indexOf('\n\n', start + 1);
  return text.slice(start + 1, end < 0 ? undefined : end);
}

describe('docket snapshot and tasks', { timeout: 300_000, concurrency: true }, () => {
  it('snapshot shows queued and scheduled tasks as tables, as stats and as JSON', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    const soon = await docket.client.add('trace', { key: 'soon-1' })('hello');
    const later = await docket.client.add('sleep', { key: 'later-1', delay: 120_000 })(2);
    assert.equal(soon.disposition, 'scheduled');
    assert.equal(later.disposition, 'scheduled');

    // each command is a process of its own: run them side by side
    const [text, stats, json] = await Promise.all([
      runOk(['snapshot', ...target(name)]),
      runOk(['snapshot', '--stats', ...target(name)]),
      runOk(['snapshot', '--json', '--stats', ...target(name)]).then(
        (out) =>
          JSON.parse(out) as {
            docket: string;
            totalTasks: number;
            counts: { running: number; queued: number; scheduled: number };
            future: {
              key: string;
              taskName: string;
              args: unknown[];
              when: string;
              state: string;
            }[];
            running: unknown[];
            stats: { task: string; total: number; queued: number; scheduled: number }[];
          },
      ),
    ]);
    assert.match(text, new RegExp(`Docket '${name}'`));
    assert.match(text, /0 workers, 0 running, 1 queued, 1 scheduled \(2 tasks\)/);
    assert.match(
      section(text, 'Queued'),
      /^Queued \(1\)\n[^]*│ soon-1 +│ trace │ (now|\d+(ms|s) ago) +│/,
    );
    assert.match(
      section(text, 'Scheduled'),
      /^Scheduled \(1\)\n[^]*│ later-1 +│ sleep │ in (1m \d+s|2m) +│/,
    );
    assert.doesNotMatch(section(text, 'Queued'), /later-1/);

    // a future task is scheduled, not queued
    assert.match(stats, /By task\n/);
    assert.match(stats, /│ sleep +│ 0 +│ 0 +│ 1 +│ - +│ in /);
    assert.match(stats, /│ trace +│ 0 +│ 1 +│ 0 +│ (now|\d+(ms|s) ago) +│ - +│/);

    assert.equal(json.docket, name);
    assert.equal(json.totalTasks, 2);
    assert.deepEqual(json.counts, { running: 0, queued: 1, scheduled: 1, held: 0 });
    assert.deepEqual(
      json.future.map((f) => [f.key, f.taskName, f.args, f.state]),
      [
        ['soon-1', 'trace', ['hello'], 'queued'],
        ['later-1', 'sleep', [2], 'scheduled'],
      ],
    );
    assert.equal(new Date(json.future[1].when).getTime(), later.when.getTime());
    assert.deepEqual(json.running, []);
    assert.deepEqual(json.stats.map((s) => [s.task, s.total, s.queued, s.scheduled]).sort(), [
      ['sleep', 1, 0, 1],
      ['trace', 1, 1, 0],
    ]);

    assert.equal(
      await runOk(['clear', '--yes', ...target(name)]),
      `Clearing docket '${name}' on ${REDIS_URL} removes 2 tasks (1 queued, 1 scheduled)\n` +
        `Cleared 2 tasks from docket '${name}'\n`,
    );
    assert.match(await runOk(['snapshot', ...target(name)]), /0 running, 0 queued, 0 scheduled/);
  });

  it('snapshot counts every task and says which lists it cut', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    const many = Array.from({ length: 1_200 }, (_, i) => [i]);
    await docket.client.addMany('sleep', many, { delay: 600_000 });
    await docket.client.addMany('trace', [['a'], ['b'], ['c']]);

    const [text, short, out, bad] = await Promise.all([
      runOk(['snapshot', '--stats', ...target(name)]),
      runOk(['snapshot', '--limit', '2', ...target(name)]),
      runOk(['snapshot', '--json', '--limit', '5', ...target(name)]),
      runCli(['snapshot', '--limit', 'lots', ...target(name)]),
    ]);
    assert.match(text, /0 running, 3 queued, 1 200 scheduled \(1 203 tasks\)/);
    assert.match(text, /\nQueued \(3\)\n/);
    assert.match(text, /\nScheduled \(showing 997 of 1 200\)\n/);
    assert.equal(section(text, 'Scheduled').match(/│ sleep │/g)?.length, 997);
    assert.match(
      text,
      /\nBy task \(of the 1 000 listed tasks, not all 1 203: --limit lists more\)\n/,
    );

    assert.match(short, /0 running, 3 queued, 1 200 scheduled/);
    assert.match(short, /\nQueued \(showing 2 of 3\)\n/);
    assert.match(short, /\nScheduled \(showing 0 of 1 200\)\n\(none listed: see --limit\)/);

    const json = JSON.parse(out) as {
      totalTasks: number;
      limit: number;
      counts: Record<string, number>;
      future: { state: string }[];
    };
    assert.equal(json.totalTasks, 1_203);
    assert.equal(json.limit, 5);
    assert.deepEqual(json.counts, { running: 0, queued: 3, scheduled: 1_200, held: 0 });
    assert.deepEqual(
      json.future.map((f) => f.state),
      ['queued', 'queued', 'queued', 'scheduled', 'scheduled'],
    );

    assert.equal(bad.code, 2);
    assert.match(errorLine(bad), /--limit.*whole number/);
  });

  it('tasks trace|fail|sleep add the built-in tasks and print their keys', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    const out = await runOk([
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
    const fail = await runOk(['tasks', 'fail', 'oops', ...target(name)]);
    const key = /'([0-9a-f-]{36})'/.exec(fail)?.[1];
    assert.ok(key, fail);
    assert.deepEqual((await docket.client.getExecution(key))?.args, ['oops']);
    assert.match(
      await runOk(['tasks', 'sleep', '--key', 's1', ...target(name)]),
      /^Task key 's1' is already scheduled/,
    );
  });
});
